// `npm run bench`: GET /api/user with a signed-in session against a bare route and a floor route
// (one primary-key SELECT on the same pool), on PostgreSQL or the embedded database.
// See docs/benchmarks.md.
import { parseArgs } from 'node:util';
import { benchDatabase } from './lib/database.ts';
import { measureRounds, median, type LoadOptions, type LoadResult } from './lib/load.ts';
import { pgbenchRunner } from './lib/pgbench.ts';
import { startServer } from './lib/server.ts';
import { expectStatus, registerAndSignIn } from './lib/session.ts';
import { formatTable } from './lib/table.ts';

const USAGE = `Usage: npm run bench -- [--duration S] [--warmup S] [--connections N] [--rounds N] [--workers LIST] [--pglite] [--cpu-prof DIR]

  DATABASE_URL   PostgreSQL to run on as it is; default: a fresh croupier_bench database
                 on postgres://postgres@127.0.0.1:5432, recreated each run
  --rounds N     measure the three routes N times, interleaved, and report each one's median
  --workers 1,2,4  run the server as \`serve --workers N\` for each N in turn, each followed by
                 pgbench -b tpcb-like on the same PostgreSQL, and compare them (REDIS_URL is passed on)
  --pglite       the embedded database instead
  --cpu-prof     write the server's CPU profile into DIR (open it in Chrome DevTools)`;

/** The issue's target: the signed-in read costs at most ~1.4× the floor, with a short tail. */
const TARGET_SHARE_OF_FLOOR = 0.7;
const TARGET_P99_MS = 50;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '1' },
    pglite: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    'pgbench-clients': { type: 'string', default: '10' },
    'pgbench-scale': { type: 'string', default: '10' },
    'pgbench-seconds': { type: 'string', default: '10' },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const seconds = (name: string, raw: string): number => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} must be a whole number.\n\n${USAGE}`);
    process.exit(2);
  }
  return value;
};
const duration = Math.max(1, seconds('duration', values.duration));
const warmup = seconds('warmup', values.warmup);
const connections = Math.max(1, seconds('connections', values.connections));
const rounds = Math.max(1, seconds('rounds', values.rounds));
const workerCounts = values.workers.split(',').map((raw) => Math.max(1, seconds('workers', raw.trim())));
const compareWorkers = values.workers !== '1';
if (compareWorkers && values.pglite) {
  console.error('--workers needs PostgreSQL: the embedded database serves one process.');
  process.exit(2);
}
const envUrl = process.env.DATABASE_URL?.trim();

const database = await benchDatabase({ pglite: values.pglite, databaseUrl: envUrl === '' ? undefined : envUrl });
const profile = values['cpu-prof'];
const pgbench = compareWorkers
  ? pgbenchRunner(
      seconds('pgbench-clients', values['pgbench-clients']),
      seconds('pgbench-scale', values['pgbench-scale']),
      seconds('pgbench-seconds', values['pgbench-seconds']),
    )
  : undefined;
const summary: { workers: number; results: LoadResult[]; pgbenchTps: number | undefined }[] = [];
let failed = false;
try {
  for (const workers of workerCounts) {
    const measured = await measure(workers);
    failed ||= measured.failed;
    summary.push({ workers, results: measured.results, pgbenchTps: pgbench?.() });
    if (pgbench !== undefined)
      console.log(`pgbench -b tpcb-like after ${workers} worker(s): ${summary.at(-1)!.pgbenchTps!.toFixed(0)} tps\n`);
  }
  if (compareWorkers) {
    console.log(`by workers (${database.label}${process.env.REDIS_URL === undefined ? '' : ', sessions in Redis'})`);
    console.log('| workers | bare req/s | floor req/s | /api/user req/s | user vs bare | user p99 ms | pgbench tps |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const { workers, results, pgbenchTps } of summary) {
      const [bare, floor, user] = results as [LoadResult, LoadResult, LoadResult];
      console.log(
        `| ${workers} | ${bare.rps.toFixed(0)} | ${floor.rps.toFixed(0)} | ${user.rps.toFixed(0)} | ${((user.rps / bare.rps) * 100).toFixed(1)} % | ${user.p99.toFixed(1)} | ${pgbenchTps?.toFixed(0) ?? ''} |`,
      );
    }
  }
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await database.cleanup();
}
process.exit(failed ? 1 : 0);

/** One server (`workers` processes), its three routes measured in rounds and reported. */
async function measure(workers: number): Promise<{ results: LoadResult[]; failed: boolean }> {
  const server = await startServer({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    workers,
    execArgv: profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`],
  });
  try {
    const session = await registerAndSignIn(server.url);
    const me = (await expectStatus(server.url, '/api/user', session.headers)) as { id: number };
    await expectStatus(server.url, '/bench/bare', {});
    await expectStatus(server.url, `/bench/floor?id=${me.id}`, {});

    console.log(`croupier bench on ${database.label}${workers > 1 ? `, ${workers} workers` : ''}`);
    console.log(
      `${connections} connections, ${warmup} s warm-up + ${duration} s per route` +
        `${rounds > 1 ? `, ${rounds} interleaved rounds (medians)` : ''}, server pid ${server.pid}\n`,
    );
    const load = { connections, duration, warmup, serverCpu: () => server.cpu() };
    const table = (results: LoadResult[]) =>
      formatTable(results, [
        { title: 'vs bare', result: results[0]! },
        { title: 'vs floor', result: results[1]! },
      ]);
    // Each round's user/floor ratio: its two routes ran back to back, under the same conditions.
    const shares: number[] = [];
    const routes: LoadOptions[] = [
      { ...load, label: 'GET /bench/bare', url: `${server.url}/bench/bare` },
      { ...load, label: 'GET /bench/floor (1 pk select)', url: `${server.url}/bench/floor?id=${me.id}` },
      { ...load, label: 'GET /api/user (signed in)', url: `${server.url}/api/user`, headers: session.headers },
    ];
    const results = await measureRounds(routes, rounds, (round, roundResults) => {
      shares.push(roundResults[2]!.rps / roundResults[1]!.rps);
      if (rounds > 1) console.log(`round ${round}/${rounds}\n${table(roundResults)}\n`);
    });
    const user = results[2]!;
    if (rounds > 1) console.log(`median of ${rounds} rounds`);
    console.log(table(results));

    const share = median(shares);
    const met = share >= TARGET_SHARE_OF_FLOOR && user.p99 < TARGET_P99_MS;
    console.log(
      `\ntarget: /api/user >= ${TARGET_SHARE_OF_FLOOR * 100}% of floor req/s and p99 < ${TARGET_P99_MS} ms: ` +
        `${(share * 100).toFixed(1)}%${rounds > 1 ? " (median of the rounds' ratios)" : ''}, p99 ${user.p99.toFixed(1)} ms -> ${met ? 'met' : 'MISSED'}\n`,
    );
    if (results.some((result) => result.failures > 0)) {
      console.error('\nSome requests failed (non-2xx, errors or timeouts): these figures are not valid.');
      for (const route of routes.filter((_, i) => results[i]!.failures > 0)) {
        const response = await fetch(route.url, { headers: route.headers ?? {} });
        console.error(`${route.label} now answers ${response.status} ${(await response.text()).slice(0, 200)}`);
      }
      return { results, failed: true };
    }
    return { results, failed: false };
  } finally {
    await server.stop();
  }
}
