// `node bench/topup-paid.ts`: throughput of the paid top-up path on PostgreSQL — signed sandbox
// webhook → top-up marked paid, amount + gift + referral reward credited, three ledger lines —
// against `pgbench -b tpcb-like` on the same server in the same run (issue 4: at least 50 %).
// The server runs in its own process (bench/lib/server.ts); autocannon drives it from this one.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sandboxSignature } from '../src/modules/payments/gateways/sandbox.ts';
import { benchDatabase } from './lib/database.ts';
import {
  alternateWithPgbench,
  ledgerReport,
  positiveCounts,
  timedRun,
  type AlternatedFigures,
  PGBENCH_OPTIONS,
  pgbenchOf,
} from './lib/rounds.ts';
import { startServer } from './lib/server.ts';

const { values } = parseArgs({
  options: {
    topups: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    users: { type: 'string', default: '2000' },
    referrers: { type: 'string', default: '200' },
    connections: { type: 'string', default: '20' },
    ...PGBENCH_OPTIONS,
    // `serve --workers N` for each N in turn (issue 11), on the same database and pgbench.
    workers: { type: 'string', default: '1' },
  },
});
const count = positiveCounts(values);
const measured = count('topups');
const warmup = count('warmup');
const users = count('users');
const referrers = count('referrers');
const connections = count('connections');
const rounds = count('rounds');
const workerCounts = values.workers.split(',').map((raw) => positiveCounts({ workers: raw.trim() })('workers'));
const SECRET = 'bench-sandbox-secret';
const AMOUNT_CENTS = 5000;

const database = await benchDatabase({ name: 'croupier_bench_topup' });
const startFor = (workers: number) =>
  startServer({
    databaseUrl: database.databaseUrl,
    dataDir: database.dataDir,
    workers,
    env: { PAYMENT_SANDBOX_SECRET: SECRET },
    execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
  });
let server = await startFor(workerCounts[0]!);
let failed = false;
try {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // Gifts and referral rewards on, so every payment writes three ledger lines.
  await client.query(`insert into settings (name, version, value) values
    ('topup', 2, '{"gift_rate_first_time": 1000, "gift_rate": 500, "options": []}'),
    ('referral', 2, '{"bonus": 0, "topped_up_bonus": 100, "topped_up_bonus_rate": 150}')`);
  // Accounts and pending top-ups are written directly: the bench is about paying, not signing up.
  await client.query(
    `insert into users (name, email, password, remember_nonce)
     select 'Referrer ' || g, 'referrer' || g || '@bench.test', 'x', md5(g::text) from generate_series(1, $1::int) g`,
    [referrers],
  );
  await client.query(
    `insert into users (name, email, password, remember_nonce, ref)
     select 'Player ' || g, 'player' || g || '@bench.test', 'x', md5(g::text), 1 + (g % $2::int)
     from generate_series(1, $1::int) g`,
    [users, referrers],
  );
  await client.query(
    `insert into topups (public_id, user_id, payment_method_id, amount, currency, gateway, gateway_payment_id, qr_code)
     select md5('topup' || g), $2::int + 1 + (g % $3::int), 1, $4::bigint, 'BRL', 'sandbox', 'BENCH' || g, 'bench'
     from generate_series(1, $1::int) g`,
    [workerCounts.length * (warmup + rounds * measured), referrers, users, AMOUNT_CENTS],
  );
  await client.query('vacuum analyze');

  // Bodies and signatures are made before each run so the load generator spends its CPU on
  // sending, as pgbench's client does (signatures stay well inside the 300-second window).
  let next = 0;
  const signed = (count: number, from: number) => {
    const at = Math.floor(Date.now() / 1000);
    return Array.from({ length: count }, (_, i) => {
      const body = JSON.stringify({ payment_id: `BENCH${from + i + 1}`, status: 'paid', amount: AMOUNT_CENTS / 100 });
      return { body, signature: sandboxSignature(SECRET, body, at) };
    });
  };
  const run = (amount: number) => {
    const requests = signed(amount, next);
    let index = 0;
    next += amount;
    return timedRun({
      url: `${server.url}/api/webhooks/payments/sandbox`,
      connections,
      amount,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const { body, signature } = requests[index++ % requests.length]!;
            return { ...request, body, headers: { 'content-type': 'application/json', 'x-signature': signature } };
          },
        },
      ],
    });
  };

  const pgbench = pgbenchOf(count);
  const byWorkers: { workers: number; figures: AlternatedFigures }[] = [];
  for (const [index, workers] of workerCounts.entries()) {
    if (index > 0) {
      await server.stop();
      server = await startFor(workers);
    }
    if (workerCounts.length > 1) console.error(`${workers} worker(s):`);
    const figures = await alternateWithPgbench({
      rounds,
      warmup,
      measured,
      unit: 'paid top-ups',
      run,
      serverCpu: () => server.cpu(),
      client,
      pgbench,
    });
    byWorkers.push({ workers, figures });
  }
  // The verdict is the first count's (one worker unless --workers says otherwise); every run counts for the ledger.
  const figures = byWorkers[0]!.figures;
  const { perSecond, pgbenchTps, share } = figures;
  const failures = byWorkers.reduce((sum, { figures: each }) => sum + each.failures + each.warmupFailures, 0);

  const check = await client.query<{ paid: string; lines: string; types: string }>(
    `select (select count(*) from topups where status = 1) as paid,
      (select count(*) from ledger_entries) as lines,
      (select string_agg(distinct type, ',' order by type) from ledger_entries) as types`,
  );
  await client.end();
  const report = await ledgerReport(database);

  console.log(`paid top-up path on ${database.label}`);
  console.log(
    `${users} players, ${referrers} referrers, ${connections} connections, ${warmup} warm-up webhooks, then ${rounds} rounds of ${measured} webhooks and pgbench (medians)\n`,
  );
  console.log(
    `webhook → credit + gift + referral: ${perSecond.toFixed(0)} paid top-ups/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMs.toFixed(2)} ms and database CPU ${figures.dbCpuMs.toFixed(2)} ms per payment)`,
  );
  console.log(`pgbench -b tpcb-like:               ${pgbenchTps.toFixed(0)} tps`);
  console.log(`share of pgbench:                   ${(share * 100).toFixed(1)} % (target ≥ 50 %)\n`);
  console.log(
    `top-ups paid: ${check.rows[0]!.paid}, ledger lines: ${check.rows[0]!.lines} (${check.rows[0]!.types}), failures: ${failures}`,
  );
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  if (workerCounts.length > 1) {
    console.log(`\nby workers${process.env.REDIS_URL === undefined ? '' : ' (sessions in Redis)'}`);
    console.log('| workers | paid top-ups/s | p99 ms | server CPU ms/payment | pgbench tps | share of pgbench |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (const { workers, figures: each } of byWorkers) {
      console.log(
        `| ${workers} | ${each.perSecond.toFixed(0)} | ${each.p99} | ${each.cpuMs.toFixed(2)} | ${each.pgbenchTps.toFixed(0)} | ${(each.share * 100).toFixed(1)} % |`,
      );
    }
  }
  const expectedLines = 3 * workerCounts.length * (warmup + rounds * measured);
  if (failures > 0 || Number(check.rows[0]!.lines) !== expectedLines || report.problems.length > 0) {
    console.error(`INVALID RUN: expected ${expectedLines} ledger lines, no failures and a clean ledger.`);
    failed = true;
  } else if (share < 0.5) {
    console.error('BELOW TARGET: the paid top-up path reached less than 50 % of pgbench.');
    failed = true;
  }
} finally {
  await server.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
