import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const BENCH_SERVER = fileURLToPath(new URL('../server.ts', import.meta.url));

export interface ServerOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** More environment for the server (config variables of the README). */
  env?: Record<string, string>;
  /** `serve --workers N`: N worker processes on one port behind a node:cluster primary (PostgreSQL only). */
  workers?: number;
  /** Node flags for the server process, e.g. ['--cpu-prof', '--cpu-prof-dir=prof']. */
  execArgv?: string[];
  /** Another entry point; it must send `{ type: 'listening', url }` over IPC like bench/server.ts. */
  entry?: string;
  startTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  pid: number;
  /** The server process's CPU time so far, in microseconds (its GET /bench/cpu). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the server in a child process, so the load generator and the server never share an
 * event loop. Resolves once it listens (after its migrations).
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: options.dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    // `METRICS_ENABLED=on npm run bench` measures the request histogram's cost (docs/production.md).
    ...(process.env.METRICS_ENABLED === undefined ? {} : { METRICS_ENABLED: process.env.METRICS_ENABLED }),
    // `APP_LOCALE=pt_BR npm run bench` (and APP_LOCALE_NEGOTIATE=on) measures the language's cost (docs/i18n.md).
    ...(process.env.APP_LOCALE === undefined ? {} : { APP_LOCALE: process.env.APP_LOCALE }),
    ...(process.env.APP_LOCALE_NEGOTIATE === undefined ? {} : { APP_LOCALE_NEGOTIATE: process.env.APP_LOCALE_NEGOTIATE }),
    ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
    // Sessions and rate limits in Redis, as several instances would run (issue 11's bench).
    ...(process.env.REDIS_URL === undefined ? {} : { REDIS_URL: process.env.REDIS_URL }),
    BENCH_WORKERS: String(options.workers ?? 1),
    ...options.env,
  };
  const child = fork(options.entry ?? BENCH_SERVER, [], {
    env,
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('The bench server did not start in time.'));
    }, options.startTimeoutMs ?? 60_000);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type === 'listening' && typeof message.url === 'string') {
        clearTimeout(timer);
        resolve(message.url);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`The bench server exited before listening (code ${code}, signal ${signal}).`));
    });
  });
  const pid = child.pid!;
  return {
    url,
    pid,
    async cpu() {
      if ((options.workers ?? 1) > 1) return treeCpuMicros(pid);
      const response = await fetch(`${url}/bench/cpu`);
      if (!response.ok) throw new Error(`GET /bench/cpu: ${response.status}`);
      return ((await response.json()) as { micros: number }).micros;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU time (µs) of `pid` and its children (the cluster's workers), from /proc (Linux). */
function treeCpuMicros(pid: number): number {
  const ticks = (id: number) => {
    try {
      const fields = readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // Not Linux: the primary alone.
  }
  // Clock ticks are 1/100 s.
  return [pid, ...children].reduce((sum, id) => sum + ticks(id), 0) * 10_000;
}
