// `node bench/withdrawals.ts`: throughput of withdrawal requests on PostgreSQL — 100 signed-in
// players asking `POST /api/withdrawals` (session, CSRF, limits, fee, the hold: one ledger line)
// — against `pgbench -b tpcb-like` on the same server in the same run (issue 8: at least 50 %).
// The server runs in its own process (bench/lib/server.ts); autocannon drives it from this one.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDatabase } from './lib/database.ts';
import { alternateWithPgbench, ledgerReport, positiveCounts, timedRun, PGBENCH_OPTIONS, pgbenchOf } from './lib/rounds.ts';
import { startServer } from './lib/server.ts';
import { registerAndSignIn, type BenchSession } from './lib/session.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    users: { type: 'string', default: '100' },
    connections: { type: 'string', default: '20' },
    ...PGBENCH_OPTIONS,
  },
});
const count = positiveCounts(values);
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

  let turn = 0;
  const run = (amount: number) =>
    timedRun({
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
    });

  const figures = await alternateWithPgbench({
    rounds,
    warmup,
    measured,
    unit: 'withdrawals',
    run,
    serverCpu: () => server.cpu(),
    client,
    pgbench: pgbenchOf(count),
  });
  const { perSecond, pgbenchTps, share } = figures;
  const failures = figures.failures + figures.warmupFailures;

  const check = await client.query<{ made: string; holds: string; fees: string }>(
    `select (select count(*) from withdrawals) as made,
      (select count(*) from ledger_entries where type = 'withdrawal') as holds,
      (select count(*) from withdrawals where fee <> 2) as fees`,
  );
  await client.end();
  const report = await ledgerReport(database);

  console.log(`withdrawal requests on ${database.label}`);
  console.log(
    `${users} signed-in players, ${connections} connections, ${warmup} warm-up requests, then ${rounds} rounds of ${measured} requests and pgbench (medians)\n`,
  );
  console.log(
    `POST /api/withdrawals (limits + fee + hold): ${perSecond.toFixed(0)} withdrawals/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMs.toFixed(2)} ms and database CPU ${figures.dbCpuMs.toFixed(2)} ms per request)`,
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
