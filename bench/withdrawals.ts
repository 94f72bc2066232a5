// `node bench/withdrawals.ts`: throughput of withdrawal requests on PostgreSQL — 100 signed-in
// players asking `POST /api/withdrawals` (session, CSRF, limits, fee, the hold: one ledger line)
// — against `pgbench -b tpcb-like` on the same server in the same run (issue 8: at least 50 %).
// The server runs in its own process (bench/lib/server.ts); autocannon drives it from this one.
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { verifyLedger } from '../src/modules/wallet/verify.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { benchDatabase } from './lib/database.ts';
import { cpuSince, databaseCpu, pgbenchRunner } from './lib/pgbench.ts';
import { startServer } from './lib/server.ts';
import { registerAndSignIn, type BenchSession } from './lib/session.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    users: { type: 'string', default: '100' },
    connections: { type: 'string', default: '20' },
    'pgbench-clients': { type: 'string', default: '10' },
    'pgbench-scale': { type: 'string', default: '10' },
    'pgbench-seconds': { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
  },
});
const count = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive whole number.`);
    process.exit(2);
  }
  return value;
};
const measured = count('requests');
const warmup = count('warmup');
const users = count('users');
const connections = count('connections');
const rounds = count('rounds');
const BODY = JSON.stringify({ payee_name: 'Bench Payee', account_type: 'CPF', payee_account: '123.456.789-09', amount: 1 });

const database = await benchDatabase({ name: 'croupier_bench_withdrawals' });
const server = await startServer({
  databaseUrl: database.databaseUrl,
  dataDir: database.dataDir,
  execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
});
let failed = false;
try {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // Players sign up through the API (real sessions, real CSRF tokens), a few at a time.
  const sessions: BenchSession[] = [];
  while (sessions.length < users) {
    const batch = Math.min(4, users - sessions.length);
    sessions.push(...(await Promise.all(Array.from({ length: batch }, () => registerAndSignIn(server.url)))));
  }
  // Money arrives through the ledger function, as any credit does; limits and a fee are on, so
  // every request runs the whole rule (the counted limits stay off: the players have no history).
  await client.query(`select ledger_apply(id, 'BRL', 'adjustment', 100000000, null, null, 'bench funds', 'bench-fund:' || id)
    from users`);
  await client.query(`insert into settings (name, version, value) values ('withdraw', 2,
    '{"min_amount_for_player": 50, "min_amount_for_partner": 100, "fee_rate": 150, "total_bet": 0, "referred_users_count": 0, "total_topped_up": 0}')`);
  await client.query('vacuum analyze');

  // autocannon settles on its one-second tick, not at the last answer: timing the promise would
  // add up to a second of idle time to a run of a few seconds, so the clock stops at the last answer.
  let lastAnswer = 0n;
  let turn = 0;
  const run = (amount: number) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${server.url}/api/withdrawals`,
          connections,
          amount,
          requests: [
            {
              method: 'POST',
              setupRequest: (request) => {
                const session = sessions[turn++ % sessions.length]!;
                return { ...request, body: BODY, headers: { ...session.headers, 'content-type': 'application/json' } };
              },
            },
          ],
        },
        (error, result) => (error ? reject(error as Error) : resolve(result)),
      );
      instance.on('response', () => {
        lastAnswer = process.hrtime.bigint();
      });
    });

  // Rounds alternate the two measurements so drift of this machine's load hits both alike;
  // each figure is the median of its rounds.
  const pgbench = pgbenchRunner(count('pgbench-clients'), count('pgbench-scale'), count('pgbench-seconds'));
  const warm = await run(warmup);
  let failures = warm.non2xx + warm.errors + warm.timeouts;
  const ours: { rate: number; p50: number; p99: number; cpuMs: number; dbCpuMs: number }[] = [];
  const theirs: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const cpuBefore = await server.cpu();
    const dbCpuBefore = await databaseCpu(client);
    const started = process.hrtime.bigint();
    const result = await run(measured);
    const elapsed = Number(lastAnswer - started) / 1e9;
    const cpu = (await server.cpu()) - cpuBefore;
    const dbCpu = cpuSince(dbCpuBefore, await databaseCpu(client));
    failures += result.non2xx + result.errors + result.timeouts;
    ours.push({
      rate: result.requests.total / elapsed,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpuMs: cpu / result.requests.total / 1000,
      dbCpuMs: dbCpu / result.requests.total,
    });
    theirs.push(pgbench());
    console.error(`round ${round}: ${ours.at(-1)!.rate.toFixed(0)} withdrawals/s, pgbench ${theirs.at(-1)!.toFixed(0)} tps`);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const perSecond = median(ours.map((round) => round.rate));
  const pgbenchTps = median(theirs);
  const share = perSecond / pgbenchTps;

  const check = await client.query<{ made: string; holds: string; fees: string }>(
    `select (select count(*) from withdrawals) as made,
      (select count(*) from ledger_entries where type = 'withdrawal') as holds,
      (select count(*) from withdrawals where fee <> 2) as fees`,
  );
  await client.end();
  const verifier = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  const report = await verifyLedger(verifier.db);
  await verifier.close();

  console.log(`withdrawal requests on ${database.label}`);
  console.log(
    `${users} signed-in players, ${connections} connections, ${warmup} warm-up requests, then ${rounds} rounds of ${measured} requests and pgbench (medians)\n`,
  );
  console.log(
    `POST /api/withdrawals (limits + fee + hold): ${perSecond.toFixed(0)} withdrawals/s (p50 ${median(ours.map((r) => r.p50))} ms, p99 ${median(ours.map((r) => r.p99))} ms, server CPU ${median(ours.map((r) => r.cpuMs)).toFixed(2)} ms and database CPU ${median(ours.map((r) => r.dbCpuMs)).toFixed(2)} ms per request)`,
  );
  console.log(`pgbench -b tpcb-like:                       ${pgbenchTps.toFixed(0)} tps`);
  console.log(`share of pgbench:                           ${(share * 100).toFixed(1)} % (target ≥ 50 %)\n`);
  const made = Number(check.rows[0]!.made);
  console.log(`withdrawals: ${made}, hold lines: ${check.rows[0]!.holds}, failures: ${failures}`);
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  const expected = warmup + rounds * measured;
  if (
    failures > 0 ||
    made !== expected ||
    Number(check.rows[0]!.holds) !== expected ||
    Number(check.rows[0]!.fees) !== 0 ||
    report.problems.length > 0
  ) {
    console.error(`INVALID RUN: expected ${expected} withdrawals with their hold lines and 0.02 fees, no failures and a clean ledger.`);
    failed = true;
  } else if (share < 0.5) {
    console.error('BELOW TARGET: withdrawal requests reached less than 50 % of pgbench.');
    failed = true;
  }
} finally {
  await server.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
