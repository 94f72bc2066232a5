// `node bench/topup-pix.ts`: throughput of paid top-ups through a `pix-api` payment method on
// PostgreSQL — the PSP's notification (`POST /api/webhooks/pix/{code}/pix`, one payment an item)
// → the service asks the PSP simulator (test/pix/simulator/psp.ts: real HTTPS with mutual TLS,
// certificates from test/pix/pki.ts, OAuth2 token, every answer checked against API Pix's schemas)
// `GET /pix/{e2eid}` on loopback → the payment recorded once by its endToEndId and the top-up
// paid, amount + gift + referral reward credited, three ledger lines — against `pgbench -b
// tpcb-like` on the same server in the same run (issue 21: at least 40 %). The server runs in its
// own process (bench/lib/server.ts); the simulator and autocannon run in this one.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sealSecrets } from '../src/modules/payments/pix-api/secrets.ts';
import { Keyring } from '../src/platform/crypto.ts';
import { testPki } from '../test/pix/pki.ts';
import { PspSimulator } from '../test/pix/simulator/psp.ts';
import { benchDatabase } from './lib/database.ts';
import { alternateWithPgbench, ledgerReport, positiveCounts, timedRun, PGBENCH_OPTIONS, pgbenchOf } from './lib/rounds.ts';
import { startServer } from './lib/server.ts';

const { values } = parseArgs({
  options: {
    topups: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    users: { type: 'string', default: '2000' },
    referrers: { type: 'string', default: '200' },
    connections: { type: 'string', default: '20' },
    // The server's DATABASE_POOL_SIZE: its default, 10, unless given (docs/benchmarks.md measures 4 beside it).
    pool: { type: 'string', default: '10' },
    // `serve --workers N`: N server processes, each with its pool and its own batches of payments.
    workers: { type: 'string', default: '1' },
    ...PGBENCH_OPTIONS,
  },
});
/** Issue 21: paid top-ups through pix-api at least this share of pgbench's tps. */
const TARGET = 0.4;
const count = positiveCounts(values);
const measured = count('topups');
const warmup = count('warmup');
const users = count('users');
const referrers = count('referrers');
const connections = count('connections');
const pool = count('pool');
const workers = count('workers');
const rounds = count('rounds');
const APP_KEY = randomBytes(32);
const AMOUNT_CENTS = 5000n;
const KEY = '123e4567-e12b-12d1-a456-426655440000';
const CLIENT = { id: 'croupier-bench', secret: 'bench-client-secret-0123456789' };
const PAYER = { cpf: '12345678909', name: 'Fulano de Tal' };
const CODE = 'pix-psp';
/** The txid of bench top-up `n` (26 to 35 letters and digits), the same in the database and at the PSP. */
const txidOf = (n: number) => `bench${String(n).padStart(26, '0')}`;

const pki = testPki();
const sim = await PspSimulator.start({ pki, keys: [KEY], client: CLIENT });
const database = await benchDatabase({ name: 'croupier_bench_topup_pix' });
const server = await startServer({
  workers,
  databaseUrl: database.databaseUrl,
  dataDir: database.dataDir,
  // Reconciliation off: every credit of the run comes from a notification. The one method takes
  // far more than a PSP's minute of notifications, so its look-up budget is raised out of the way
  // (still counted: a write to the shared counter a fiftieth of it).
  env: {
    APP_KEY: `base64:${APP_KEY.toString('base64')}`,
    PIX_RECONCILE_S: '0',
    PIX_PAYOUT_RECONCILE_S: '0',
    PIX_NOTIFICATION_LOOKUPS_PER_MIN: '10000000',
    DATABASE_POOL_SIZE: String(pool),
  },
  execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
});
let failed = false;
try {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // The method as `POST /api/admin/payment-methods` stores it: readable fields, secrets sealed with the app key.
  const method = (
    await client.query<{ id: string }>(
      `insert into payment_methods (name, code, gateway, min_amount, max_amount, config, config_secrets)
       values ('PSP', $1, 'pix-api', 100, 5000000, $2, $3) returning id`,
      [
        CODE,
        { base_url: sim.baseUrl, client_id: CLIENT.id, ca: pki.ca.certificate, pix_key: KEY },
        sealSecrets(new Keyring(APP_KEY), {
          client_secret: CLIENT.secret,
          certificate: pki.client.certificate,
          private_key: pki.client.privateKey,
        }),
      ],
    )
  ).rows[0]!.id;
  // Gifts and referral rewards on, as in bench/topup-paid.ts, so every payment writes three ledger lines.
  await client.query(`insert into settings (name, version, value) values
    ('topup', 2, '{"gift_rate_first_time": 1000, "gift_rate": 500, "options": []}'),
    ('referral', 2, '{"bonus": 0, "topped_up_bonus": 100, "topped_up_bonus_rate": 150}')`);
  // Accounts, pending top-ups and their charges are written directly (the charges into the
  // simulator's records, as its `PUT /cob/{txid}` leaves them): the bench is about paying.
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
  const total = warmup + rounds * measured;
  await client.query(
    `insert into topups (public_id, user_id, payment_method_id, amount, currency, gateway, gateway_payment_id, qr_code, expires_at)
     select md5('topup' || g), $2::int + 1 + (g % $3::int), $5::bigint, $4::bigint, 'BRL', 'pix-api',
       'bench' || lpad(g::text, 26, '0'), 'bench', now() + interval '1 hour'
     from generate_series(1, $1::int) g`,
    [total, referrers, users, AMOUNT_CENTS, method],
  );
  const created = sim.now();
  for (let n = 1; n <= total; n++) {
    sim.charges.set(txidOf(n), {
      txid: txidOf(n),
      revisao: 0,
      criacao: created,
      expiracao: 3600,
      valor: AMOUNT_CENTS,
      chave: KEY,
      solicitacaoPagador: undefined,
      locId: n,
      location: `localhost/qr/v2/${n}`,
      status: 'ATIVA',
      payments: [],
    });
  }
  await client.query('vacuum analyze');

  // Before each run the payers pay (one payment a charge, new endToEndIds) and the PSP's
  // notification bodies are written, so the load generator spends its CPU on sending.
  let next = 0;
  const notifications = (amount: number) =>
    Array.from({ length: amount }, () => {
      const payment = sim.pay(txidOf(++next), PAYER);
      return JSON.stringify(sim.notification([payment.endToEndId]));
    });
  const credited = async () =>
    Number((await client.query<{ n: string }>(`select count(*) as n from pix_payments where outcome = 'credited'`)).rows[0]!.n);
  let unanswered = 0;
  let uncredited = 0;
  const run = async (amount: number) => {
    const bodies = notifications(amount);
    let index = 0;
    const before = await credited();
    const timed = await timedRun({
      url: `${server.url}/api/webhooks/pix/${CODE}/pix`,
      connections,
      amount,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => ({
            ...request,
            body: bodies[index++ % bodies.length]!,
            headers: { 'content-type': 'application/json' },
          }),
          onResponse: (_status, body) => {
            if (!body.includes('"message":"OK"')) unanswered += 1;
          },
        },
      ],
    });
    // The route answers once its items are settled (or after 4 s): each answer is a credit, or the run is not valid.
    uncredited += amount - ((await credited()) - before);
    return timed;
  };

  const figures = await alternateWithPgbench({
    rounds,
    warmup,
    measured,
    unit: 'paid top-ups',
    run,
    serverCpu: () => server.cpu(),
    client,
    pgbench: pgbenchOf(count),
  });
  const { perSecond, pgbenchTps, share } = figures;
  const failures = figures.failures + figures.warmupFailures;

  const check = await client.query<{ paid: string; payments: string; lines: string; types: string }>(
    `select (select count(*) from topups where status = 1) as paid,
      (select count(*) from pix_payments where outcome = 'credited') as payments,
      (select count(*) from ledger_entries) as lines,
      (select string_agg(distinct type, ',' order by type) from ledger_entries) as types`,
  );
  await client.end();
  const report = await ledgerReport(database);
  const asked = sim.calls.filter((call) => call.method === 'GET' && call.path.startsWith('/v2/pix/')).length;

  console.log(`paid top-ups through pix-api on ${database.label}`);
  console.log(
    `${users} players, ${referrers} referrers, ${connections} connections, ${workers} server process(es) with a pool of ${pool} database connections each, ${warmup} warm-up notifications, then ${rounds} rounds of ${measured} notifications and pgbench (medians)\n`,
  );
  console.log(
    `notification → GET /pix/{e2eid} (mutual TLS) → credit + gift + referral: ${perSecond.toFixed(0)} paid top-ups/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMs.toFixed(2)} ms, database CPU ${figures.dbCpuMs.toFixed(2)} ms and bench process (autocannon and simulator) CPU ${figures.benchCpuMs.toFixed(2)} ms per payment)`,
  );
  console.log(`pgbench -b tpcb-like:                                                   ${pgbenchTps.toFixed(0)} tps`);
  console.log(
    `share of pgbench:                                                       ${(share * 100).toFixed(1)} % (target ≥ ${TARGET * 100} %)\n`,
  );
  const row = check.rows[0]!;
  console.log(
    `top-ups paid: ${row.paid}, PIX payments credited: ${row.payments}, ledger lines: ${row.lines} (${row.types}), PSP confirmations asked: ${asked}, ` +
      `tokens issued: ${sim.tokensIssued}, simulator drift: ${sim.drift.length}, failures: ${failures}, answers without OK: ${unanswered}, not credited: ${uncredited}`,
  );
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  if (
    failures > 0 ||
    unanswered > 0 ||
    uncredited !== 0 ||
    sim.drift.length > 0 ||
    Number(row.paid) !== total ||
    Number(row.payments) !== total ||
    // A GET sent again on a new connection (the PSP closed the kept-alive one) is asked twice.
    asked < total ||
    Number(row.lines) !== 3 * total ||
    report.problems.length > 0
  ) {
    console.error(
      `INVALID RUN: expected ${total} notifications each confirmed once and credited with three ledger lines, no failures, no drift and a clean ledger.`,
    );
    if (sim.drift.length > 0) console.error(sim.drift.slice(0, 5).join('\n'));
    failed = true;
  } else if (share < TARGET) {
    console.error(`BELOW TARGET: paid top-ups through pix-api reached less than ${TARGET * 100} % of pgbench.`);
    failed = true;
  }
} finally {
  await server.stop();
  await sim.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
