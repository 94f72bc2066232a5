import autocannon from 'autocannon';

export interface LoadOptions {
  /** Row label in the table, e.g. `GET /api/user (signed in)`. */
  label: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  /** Measured seconds. */
  duration?: number;
  /** Seconds of load before measuring (JIT, pool, caches), thrown away. */
  warmup?: number;
  /** The server process's CPU time so far in microseconds (see `serverCpu` in server.ts). */
  serverCpu?: () => Promise<number>;
}

export interface LoadResult {
  label: string;
  /** Mean requests per second over the measured seconds. */
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Responses outside 2xx plus connection errors and timeouts: a bench with any is not valid. */
  failures: number;
  /** Server CPU microseconds per request, when `serverCpu` was given. */
  cpuPerRequest?: number;
}

function run(options: LoadOptions, duration: number): Promise<autocannon.Result> {
  return autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections ?? 50,
    duration,
  });
}

/** Drives one route with autocannon from this process (the server runs in another one). */
export async function measure(options: LoadOptions): Promise<LoadResult> {
  const warmup = options.warmup ?? 3;
  if (warmup > 0) await run(options, warmup);
  const cpuBefore = await options.serverCpu?.();
  const result = await run(options, options.duration ?? 10);
  const cpuAfter = await options.serverCpu?.();
  return {
    label: options.label,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    ...(cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
      ? {}
      : { cpuPerRequest: (cpuAfter - cpuBefore) / result.requests.total }),
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Measures the routes one after another, `rounds` times over, and keeps each route's median
 * round. Interleaving spreads any drift of the machine (other processes, thermal limits) over
 * every route instead of charging it to whichever ran last.
 */
export async function measureRounds(
  routes: LoadOptions[],
  rounds: number,
  onRound?: (round: number, results: LoadResult[]) => void,
): Promise<LoadResult[]> {
  const all: LoadResult[][] = routes.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    const results: LoadResult[] = [];
    for (const [i, route] of routes.entries()) {
      const result = await measure(route);
      all[i]!.push(result);
      results.push(result);
    }
    onRound?.(round, results);
  }
  return all.map((results) => ({
    label: results[0]!.label,
    rps: median(results.map((result) => result.rps)),
    p50: median(results.map((result) => result.p50)),
    p99: median(results.map((result) => result.p99)),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
    ...(results.every((result) => result.cpuPerRequest !== undefined)
      ? { cpuPerRequest: median(results.map((result) => result.cpuPerRequest!)) }
      : {}),
  }));
}
