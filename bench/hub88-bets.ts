// `node bench/hub88-bets.ts`: throughput of Hub88 `bet` calls on PostgreSQL — each body signed
// RSA-SHA256 with the Hub88 simulator's key (test/games/hub88-simulator.ts) and verified by the
// adapter with the provider's `hub88_public_key`, its request_uuid looked up and kept
// (provider_requests), read by the adapter (amounts in 1/100,000 of the unit), applied by
// `provider_wallet_bet` (session, player, game and funds checks, the round, one `bet` line, the
// call's record) — from many players, each bet a new transaction_uuid, against `pgbench -b
// tpcb-like` on the same server in the same run (issue 24: at least 50 %). The server runs in its
// own process (bench/lib/server.ts); autocannon drives it from this one.
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { sealConfig } from '../src/modules/games/adapters/config.ts';
import { HUB88_CONFIG } from '../src/modules/games/hub88/config.ts';
import { hub88User } from '../src/modules/games/hub88/wire.ts';
import { Keyring, sha256 } from '../src/platform/crypto.ts';
import { checkAnswer, Hub88Simulator, PER_CENT, signed } from '../test/games/hub88-simulator.ts';
import { benchDatabase } from './lib/database.ts';
import { alternateWithPgbench, ledgerReport, positiveCounts, timedRun, PGBENCH_OPTIONS, pgbenchOf } from './lib/rounds.ts';
import { startServer } from './lib/server.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    warmup: { type: 'string', default: '2000' },
    players: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '20' },
    ...PGBENCH_OPTIONS,
  },
});
/** Issue 24: signed Hub88 bets at least this share of pgbench's tps. */
const TARGET = 0.5;
const count = positiveCounts(values);
const measured = count('requests');
const warmup = count('warmup');
const players = count('players');
const connections = count('connections');
const rounds = count('rounds');
const APP_KEY = randomBytes(32);
const GAME = 'sim_fruits';
const STAKE_CENTS = 1n;
const FUNDS_CENTS = 100_000_000;

// Only its keys are used: Hub88's private key signs the calls, the operator's is the provider's `private_key`.
const hub88 = new Hub88Simulator();
const database = await benchDatabase({ name: 'croupier_bench_hub88_bets' });
const server = await startServer({
  databaseUrl: database.databaseUrl,
  dataDir: database.dataDir,
  env: { APP_KEY: `base64:${APP_KEY.toString('base64')}` },
  execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
});
let failed = false;
try {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // The provider, catalogue, players, funds and sessions are written directly, as a launch leaves
  // them for an adapter whose token lasts the session (launchToken `session`): the bench is about
  // betting. Money still arrives through the ledger function, as any credit does.
  const provider = (
    await client.query<{ id: string }>(
      `insert into providers (name, code, adapter, adapter_config) values ('Hub88', 'hub88', 'hub88', $1) returning id`,
      [sealConfig(HUB88_CONFIG, hub88.config(), new Keyring(APP_KEY))],
    )
  ).rows[0]!.id;
  await client.query(`insert into provider_games (provider_id, name, slug, code) values ($1, 'Simulated Fruits', 'sim-fruits', $2)`, [
    provider,
    GAME,
  ]);
  const ids = (
    await client.query<{ id: string }>(
      `insert into users (name, email, password, remember_nonce)
       select 'Player ' || g, 'player' || g || '@bench.test', 'x', md5(g::text) from generate_series(1, $1::int) g returning id`,
      [players],
    )
  ).rows.map((row) => Number(row.id));
  await client.query(
    `select ledger_apply(id, 'BRL', 'adjustment', $1::bigint, null, null, 'bench funds', 'bench-fund:' || id) from users`,
    [FUNDS_CENTS],
  );
  const tokens = ids.map((id) => `hub88${id}${randomBytes(16).toString('hex')}`);
  await client.query(
    `insert into game_sessions (launch_token_hash, session_token_hash, user_id, provider_id, provider_game_id, currency,
       launch_expires_at, redeemed_at, expires_at)
     select 'launch-' || u, t.hash, u, $3::bigint, g.id, 'BRL', now(), now(), now() + interval '30 minutes'
     from unnest($1::text[], $2::bigint[]) t(hash, u)
     cross join (select id from provider_games where code = $4) g`,
    [tokens.map(sha256), ids, provider, GAME],
  );
  await client.query('vacuum analyze');

  // Bodies are written and signed with Hub88's key before each run, players in turn, so the
  // load generator spends its CPU on sending (an RSA signature costs about a millisecond here);
  // the server verifies every one.
  let next = 0;
  const signedBodies = (amount: number) =>
    Array.from({ length: amount }, () => {
      const n = next++;
      const player = n % players;
      const request = {
        user: hub88User(ids[player]!),
        transaction_uuid: randomUUID(),
        supplier_transaction_id: `supplier-${n}`,
        token: tokens[player],
        round_closed: false,
        round: `round-${n}`,
        reward_uuid: null,
        request_uuid: randomUUID(),
        is_free: false,
        is_aggregated: false,
        game_code: GAME,
        currency: 'BRL',
        bet: null,
        amount: Number(STAKE_CENTS * PER_CENT),
        meta: {},
      };
      const body = JSON.stringify(request);
      return { request, body, signature: signed(body, hub88.hub88.privateKey) };
    });
  let refused = 0;
  let unaccepted = 0;
  const run = (amount: number) => {
    const requests = signedBodies(amount);
    let index = 0;
    return timedRun({
      url: `${server.url}/api/providers/hub88/hub88/transaction/bet`,
      connections,
      amount,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const { body, signature } = requests[index++ % requests.length]!;
            return { ...request, body, headers: { 'content-type': 'application/json', 'x-hub88-signature': signature } };
          },
          onResponse: (_status, body) => {
            if (!body.includes('"status":"RS_OK"')) refused += 1;
          },
        },
      ],
    });
  };
  // One call checked end to end as Hub88 accepts answers (test/games/hub88-simulator.ts), before the load.
  {
    const [probe] = signedBodies(1);
    const response = await fetch(`${server.url}/api/providers/hub88/hub88/transaction/bet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub88-signature': probe!.signature },
      body: probe!.body,
    });
    try {
      checkAnswer('transaction/bet', probe!.request, (await response.json()) as Record<string, unknown>);
    } catch (error) {
      unaccepted += 1;
      console.error(String(error));
    }
  }

  const figures = await alternateWithPgbench({
    rounds,
    warmup,
    measured,
    unit: 'bets',
    run,
    serverCpu: () => server.cpu(),
    client,
    pgbench: pgbenchOf(count),
  });
  const { perSecond, pgbenchTps, share } = figures;
  const failures = figures.failures + figures.warmupFailures;

  const check = await client.query<{ lines: string; rounds: string; calls: string; requests: string }>(
    `select (select count(*) from ledger_entries where type = 'bet') as lines,
      (select count(*) from provider_bets) as rounds,
      (select count(*) from provider_transactions where outcome = 'OK' and payload is not null) as calls,
      (select count(*) from provider_requests) as requests`,
  );
  await client.end();
  const report = await ledgerReport(database);

  const expected = 1 + warmup + rounds * measured;
  console.log(`Hub88 bets on ${database.label}`);
  console.log(
    `${players} players with a session each, ${connections} connections, ${warmup} warm-up bets, then ${rounds} rounds of ${measured} bets and pgbench (medians)\n`,
  );
  console.log(
    `POST /api/providers/hub88/hub88/transaction/bet (RSA-signed): ${perSecond.toFixed(0)} bets/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMs.toFixed(2)} ms and database CPU ${figures.dbCpuMs.toFixed(2)} ms per bet)`,
  );
  console.log(`pgbench -b tpcb-like:                                          ${pgbenchTps.toFixed(0)} tps`);
  console.log(
    `share of pgbench:                                              ${(share * 100).toFixed(1)} % (target ≥ ${TARGET * 100} %)\n`,
  );
  const row = check.rows[0]!;
  console.log(
    `bet lines: ${row.lines}, rounds: ${row.rounds}, recorded calls: ${row.calls}, request_uuids kept: ${row.requests}, refused: ${refused}, failures: ${failures}`,
  );
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  if (
    failures > 0 ||
    refused > 0 ||
    unaccepted > 0 ||
    [row.lines, row.rounds, row.calls, row.requests].some((value) => Number(value) !== expected) ||
    report.problems.length > 0
  ) {
    console.error(
      `INVALID RUN: expected ${expected} accepted bets with their lines, rounds, records and request ids, no failures and a clean ledger.`,
    );
    failed = true;
  } else if (share < TARGET) {
    console.error(`BELOW TARGET: Hub88 bets reached less than ${TARGET * 100} % of pgbench.`);
    failed = true;
  }
} finally {
  await server.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
