// The shape every money bench shares: positive whole-number options, load runs timed to their
// last answer, rounds alternating with pgbench on the same server (medians), and the ledger
// checked at the end.
import autocannon from 'autocannon';
import type pg from 'pg';
import { verifyLedger, type LedgerReport } from '../../src/modules/wallet/verify.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { median } from './load.ts';
import { cpuSince, databaseCpu, pgbenchRunner } from './pgbench.ts';

/** Reads option `name` of `values` as a positive whole number, or stops the bench with one line. */
export function positiveCounts<K extends string>(values: Record<K, string | undefined>): (name: K) => number {
  return (name) => {
    const value = Number(values[name]);
    if (!Number.isInteger(value) || value < 1) {
      console.error(`--${name} must be a positive whole number.`);
      process.exit(2);
    }
    return value;
  };
}

/**
 * The options of every bench measured against pgbench, to spread into its `parseArgs` options:
 * pgbench's clients, scale and seconds a run, and the number of rounds.
 */
export const PGBENCH_OPTIONS = {
  'pgbench-clients': { type: 'string', default: '10' },
  'pgbench-scale': { type: 'string', default: '10' },
  'pgbench-seconds': { type: 'string', default: '10' },
  rounds: { type: 'string', default: '3' },
} as const;

/** The pgbench run that PGBENCH_OPTIONS describe, read through a bench's `positiveCounts`. */
export function pgbenchOf(count: (name: keyof typeof PGBENCH_OPTIONS) => number): () => number {
  return pgbenchRunner(count('pgbench-clients'), count('pgbench-scale'), count('pgbench-seconds'));
}

export interface TimedResult {
  result: autocannon.Result;
  /** From the start to the last answer. */
  seconds: number;
}

/**
 * One autocannon run. autocannon settles on its one-second tick, not at the last answer: timing
 * the promise would add up to a second of idle time to a run of a few seconds, so the clock stops
 * at the last answer.
 */
export function timedRun(options: autocannon.Options): Promise<TimedResult> {
  const started = process.hrtime.bigint();
  let lastAnswer = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) =>
      error ? reject(error as Error) : resolve({ result, seconds: Number(lastAnswer - started) / 1e9 }),
    );
    instance.on('response', () => {
      lastAnswer = process.hrtime.bigint();
    });
  });
}

export interface AlternatedFigures {
  perSecond: number;
  p50: number;
  p99: number;
  /** Server CPU per request, ms. */
  cpuMs: number;
  /** Database CPU per request, ms. */
  dbCpuMs: number;
  /** This process's CPU per request, ms: the load generator, and a simulator where one runs here. */
  benchCpuMs: number;
  pgbenchTps: number;
  share: number;
  /** Non-2xx answers, errors and timeouts of the measured rounds. */
  failures: number;
  /** The same, of the warm-up. */
  warmupFailures: number;
}

/**
 * A warm-up, then rounds that alternate `run(measured)` with pgbench, so drift of this machine's
 * load hits both alike, in both orders (ours first in odd rounds, pgbench first in even ones);
 * each figure is the median of its rounds.
 */
export async function alternateWithPgbench(options: {
  rounds: number;
  warmup: number;
  measured: number;
  /** What one request is called in the progress lines (`bets`, `withdrawals`…). */
  unit: string;
  run(amount: number): Promise<TimedResult>;
  serverCpu(): Promise<number>;
  /** A connection to the bench database, for its backends' CPU. */
  client: pg.Client;
  pgbench(): number;
}): Promise<AlternatedFigures> {
  const failed = (result: autocannon.Result) => result.non2xx + result.errors + result.timeouts;
  const warmupFailures = failed((await options.run(options.warmup)).result);
  // What autovacuum would have done by now (it may be off, as on the development server): the
  // warm-up filled balances and ledger_entries after the bench's `vacuum analyze` saw them empty,
  // and a plan the server cached meanwhile (a sequential scan of a table of a few pages) would
  // read the whole table on every operation for the rest of the run.
  await options.client.query('analyze');
  let failures = 0;
  const ours: { rate: number; p50: number; p99: number; cpuMs: number; dbCpuMs: number; benchCpuMs: number }[] = [];
  const theirs: number[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    // pgbench goes first every other round: on this machine the second run of a round is the
    // slower one (pairedRatio below), and always running ours first would lean the share our way.
    if (round % 2 === 0) theirs.push(options.pgbench());
    const cpuBefore = await options.serverCpu();
    const dbCpuBefore = await databaseCpu(options.client);
    const benchCpuBefore = process.cpuUsage();
    const { result, seconds } = await options.run(options.measured);
    const benchCpu = process.cpuUsage(benchCpuBefore);
    const cpu = (await options.serverCpu()) - cpuBefore;
    const dbCpu = cpuSince(dbCpuBefore, await databaseCpu(options.client));
    failures += failed(result);
    ours.push({
      rate: result.requests.total / seconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpuMs: cpu / result.requests.total / 1000,
      dbCpuMs: dbCpu / result.requests.total,
      benchCpuMs: (benchCpu.user + benchCpu.system) / result.requests.total / 1000,
    });
    if (round % 2 === 1) theirs.push(options.pgbench());
    console.error(`round ${round}: ${ours.at(-1)!.rate.toFixed(0)} ${options.unit}/s, pgbench ${theirs.at(-1)!.toFixed(0)} tps`);
  }
  const perSecond = median(ours.map((round) => round.rate));
  const pgbenchTps = median(theirs);
  return {
    perSecond,
    p50: median(ours.map((round) => round.p50)),
    p99: median(ours.map((round) => round.p99)),
    cpuMs: median(ours.map((round) => round.cpuMs)),
    dbCpuMs: median(ours.map((round) => round.dbCpuMs)),
    benchCpuMs: median(ours.map((round) => round.benchCpuMs)),
    pgbenchTps,
    share: perSecond / pgbenchTps,
    failures,
    warmupFailures,
  };
}

/** `croupier ledger:verify` over the bench database. */
export async function ledgerReport(database: { databaseUrl?: string; dataDir: string }): Promise<LedgerReport> {
  const verifier = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  try {
    return await verifyLedger(verifier.db);
  } finally {
    await verifier.close();
  }
}

/**
 * The ratio B/A of two configurations measured in rounds that swap their order each round (A
 * then B, B then A, …). On this machine the run that comes second in a round is slower, whatever
 * it runs: an A/A run of bench/provider-bets.ts (both servers REGULATION=none) gave round ratios
 * of 97.6, 118.3, 91.4 and 105.0 % (docs/benchmarks.md). The median of single rounds then leans
 * whichever way the odd round went; a pair of rounds with both orders cancels the order, so the
 * figure is the median over pairs of each pair's geometric mean (an unpaired last round is left out).
 */
export function pairedRatio(roundRatios: number[]): number {
  const pairs: number[] = [];
  for (let i = 0; i + 1 < roundRatios.length; i += 2) pairs.push(Math.sqrt(roundRatios[i]! * roundRatios[i + 1]!));
  return median(pairs.length > 0 ? pairs : roundRatios);
}
