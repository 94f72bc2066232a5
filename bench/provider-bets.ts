// `node bench/provider-bets.ts`: throughput of seamless-wallet `bet` callbacks on PostgreSQL —
// signed with the provider's secret, verified on the raw body, read by the demo adapter, applied
// by `provider_wallet_bet` (session, player, game and funds checks, the round, one `bet` line,
// the call's record with its payload) — from many players, against `pgbench -b tpcb-like` on the
// same server in the same run (issue 9: at least 60 %). The server runs in its own process
// (bench/lib/server.ts); autocannon drives it from this one.
//
// `--regulation`: the same bets under REGULATION=none and REGULATION=br (every player verified
// and every limit set, so the identity and responsible-gambling checks run and pass) on two servers over the same database, in alternating
// rounds, instead of pgbench (issue 22: br at least 90 % of none).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Keyring, sha256 } from '../src/platform/crypto.ts';
import { signBody } from '../src/platform/signature.ts';
import { benchDatabase } from './lib/database.ts';
import { cpuSince, databaseCpu } from './lib/pgbench.ts';
import { median } from './lib/load.ts';
import {
  alternateWithPgbench,
  ledgerReport,
  pairedRatio,
  positiveCounts,
  timedRun,
  type TimedResult,
  PGBENCH_OPTIONS,
  pgbenchOf,
} from './lib/rounds.ts';
import { startServer } from './lib/server.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    players: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '20' },
    ...PGBENCH_OPTIONS,
    regulation: { type: 'boolean', default: false },
  },
});
const compareRegulation = values.regulation;
/** Issue 22: the bet callback under REGULATION=br keeps at least this share of its rate under none. */
const REGULATED_TARGET = 0.9;
const count = positiveCounts({ ...values, regulation: undefined });
const measured = count('requests');
const warmup = count('warmup');
const players = count('players');
const connections = count('connections');
// Under --regulation, rounds come in pairs that run both orders (pairedRatio): an odd count is rounded up.
const rounds = compareRegulation ? 2 * Math.ceil(count('rounds') / 2) : count('rounds');
const APP_KEY = randomBytes(32);
const SECRET = 'bench-provider-wallet-secret';
const GAME = 'bench-slot';
const STAKE = 0.01;
const FUNDS_CENTS = 100_000_000;

const database = await benchDatabase({ name: 'croupier_bench_provider_bets' });
const server = await startServer({
  databaseUrl: database.databaseUrl,
  dataDir: database.dataDir,
  env: { APP_KEY: `base64:${APP_KEY.toString('base64')}` },
  execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
});
// Under --regulation, a second server over the same database with the regulated mode on.
const regulated = compareRegulation
  ? await startServer({
      databaseUrl: database.databaseUrl,
      dataDir: database.dataDir,
      env: { APP_KEY: `base64:${APP_KEY.toString('base64')}`, REGULATION: 'br' },
    })
  : undefined;
let failed = false;
try {
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // The catalogue, players, funds and redeemed sessions are written directly: the bench is about
  // betting. Money still arrives through the ledger function, as any credit does.
  const provider = (
    await client.query<{ id: string }>(
      `insert into providers (name, code, adapter, wallet_secret) values ('Bench', 'bench', 'demo', $1) returning id`,
      [new Keyring(APP_KEY).encrypt(SECRET)],
    )
  ).rows[0]!.id;
  await client.query(`insert into provider_games (provider_id, name, slug, code) values ($1, 'Bench slot', 'bench-slot', $2)`, [
    provider,
    GAME,
  ]);
  await client.query(
    `insert into users (name, email, password, remember_nonce)
     select 'Player ' || g, 'player' || g || '@bench.test', 'x', md5(g::text) from generate_series(1, $1::int) g`,
    [players],
  );
  await client.query(
    `select ledger_apply(id, 'BRL', 'adjustment', $1::bigint, null, null, 'bench funds', 'bench-fund:' || id) from users`,
    [FUNDS_CENTS],
  );
  const tokens = Array.from({ length: players }, (_, i) => `bench${i}${randomBytes(16).toString('hex')}`);
  await client.query(
    `insert into game_sessions (launch_token_hash, session_token_hash, user_id, provider_id, provider_game_id, currency,
       launch_expires_at, redeemed_at, expires_at)
     select 'launch-' || u.id, t.hash, u.id, $2::bigint, g.id, 'BRL', now(), now(), now() + interval '30 minutes'
     from unnest($1::text[]) with ordinality t(hash, n)
     join (select id, row_number() over (order by id) as n from users) u on u.n = t.n
     cross join (select id from provider_games where code = $3) g`,
    [tokens.map(sha256), provider, GAME],
  );
  if (compareRegulation) {
    // Every player verified, as an operator's approval leaves them: the br server's identity check passes.
    await client.query(
      `insert into user_identities (user_id, cpf, full_name, birth_date, status, verifier, verified_at)
       select id, lpad(id::text, 11, '0'), 'Bench Player', date '1990-01-01', 'verified', 'manual', now() from users`,
    );
    // Every limit set (high enough never to refuse a bench bet), so br runs the whole
    // responsible-gambling check of each bet: exclusions, the national list, the loss windows.
    await client.query(
      `insert into user_limits (user_id, field, value)
       select u.id, f.field, case when f.field = 'session_minutes' then 1440 else 100000000000 end
       from users u cross join unnest(array['deposit_daily', 'deposit_weekly', 'deposit_monthly', 'loss_daily', 'loss_weekly',
         'loss_monthly', 'session_minutes']) f(field)`,
    );
  }
  await client.query('vacuum analyze');

  // Bodies and signatures are made before each run, players in turn, so the load generator
  // spends its CPU on sending, as pgbench's client does (signatures stay inside the 300 s window).
  let next = 0;
  const signed = (amount: number) => {
    const at = Math.floor(Date.now() / 1000);
    return Array.from({ length: amount }, () => {
      const n = next++;
      const body = JSON.stringify({
        token: tokens[n % players],
        transaction_id: `bet-${n}`,
        round_id: `round-${n}`,
        game: GAME,
        amount: STAKE,
        currency: 'BRL',
      });
      return { body, signature: signBody(SECRET, body, at) };
    });
  };
  let refused = 0;
  const run = (amount: number, url = server.url) => {
    const requests = signed(amount);
    let index = 0;
    return timedRun({
      url: `${url}/api/providers/${provider}/wallet/bet`,
      connections,
      amount,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const { body, signature } = requests[index++ % requests.length]!;
            return { ...request, body, headers: { 'content-type': 'application/json', 'x-signature': signature } };
          },
          onResponse: (_status, body) => {
            if (!body.includes('"status":"OK"')) refused += 1;
          },
        },
      ],
    });
  };

  if (regulated !== undefined) {
    failed = await compareRegulations(
      client,
      (amount, url) => run(amount, url),
      () => refused,
    );
    await client.end();
    process.exitCode = failed ? 1 : 0;
  } else {
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

    const check = await client.query<{ lines: string; rounds: string; calls: string }>(
      `select (select count(*) from ledger_entries where type = 'bet') as lines,
      (select count(*) from provider_bets) as rounds,
      (select count(*) from provider_transactions where outcome = 'OK' and payload is not null) as calls`,
    );
    await client.end();
    const report = await ledgerReport(database);

    const expected = warmup + rounds * measured;
    console.log(`seamless-wallet bets on ${database.label}`);
    console.log(
      `${players} players with a session each, ${connections} connections, ${warmup} warm-up bets, then ${rounds} rounds of ${measured} bets and pgbench (medians)\n`,
    );
    console.log(
      `POST /api/providers/:provider/wallet/bet (signed): ${perSecond.toFixed(0)} bets/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, server CPU ${figures.cpuMs.toFixed(2)} ms and database CPU ${figures.dbCpuMs.toFixed(2)} ms per bet)`,
    );
    console.log(`pgbench -b tpcb-like:                              ${pgbenchTps.toFixed(0)} tps`);
    console.log(`share of pgbench:                                  ${(share * 100).toFixed(1)} % (target ≥ 60 %)\n`);
    const row = check.rows[0]!;
    console.log(`bet lines: ${row.lines}, rounds: ${row.rounds}, recorded calls: ${row.calls}, refused: ${refused}, failures: ${failures}`);
    console.log(
      `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
    );
    if (
      failures > 0 ||
      refused > 0 ||
      [row.lines, row.rounds, row.calls].some((value) => Number(value) !== expected) ||
      report.problems.length > 0
    ) {
      console.error(
        `INVALID RUN: expected ${expected} accepted bets with their lines, rounds and records, no failures and a clean ledger.`,
      );
      failed = true;
    } else if (share < 0.6) {
      console.error('BELOW TARGET: wallet bets reached less than 60 % of pgbench.');
      failed = true;
    }
  }
} finally {
  await server.stop();
  await regulated?.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);

/**
 * --regulation: warm-ups on both servers, then rounds alternating none and br (the order
 * swapped each round, so drift hits both alike). The figure held to the target is pairedRatio of
 * the rounds' br/none ratios (each round's two runs back to back, under the same load; each pair
 * of rounds runs both orders, which cancels the second run's handicap: bench/lib/rounds.ts); the CPU the server and the database spend per bet is the figure that hardly
 * moves with the machine's other load. The run is checked as the pgbench one is (every bet
 * accepted with its line, round and record, a clean ledger).
 */
async function compareRegulations(
  client: pg.Client,
  run: (amount: number, url: string) => Promise<TimedResult>,
  refusedSoFar: () => number,
): Promise<boolean> {
  const servers = { none: server, br: regulated! };
  const failedOf = (result: TimedResult['result']) => result.non2xx + result.errors + result.timeouts;
  let failures = 0;
  for (const name of ['none', 'br'] as const) failures += failedOf((await run(warmup, servers[name].url)).result);
  await client.query('analyze');
  const figures = {
    none: { rate: [] as number[], cpu: [] as number[], db: [] as number[] },
    br: { rate: [] as number[], cpu: [] as number[], db: [] as number[] },
  };
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['none', 'br'] as const) : (['br', 'none'] as const);
    for (const name of order) {
      const before = await servers[name].cpu();
      const dbBefore = await databaseCpu(client);
      const { result, seconds } = await run(measured, servers[name].url);
      figures[name].cpu.push(((await servers[name].cpu()) - before) / result.requests.total / 1000);
      figures[name].db.push(cpuSince(dbBefore, await databaseCpu(client)) / result.requests.total);
      failures += failedOf(result);
      figures[name].rate.push(result.requests.total / seconds);
    }
    ratios.push(figures.br.rate.at(-1)! / figures.none.rate.at(-1)!);
    console.error(
      `round ${round}: none ${figures.none.rate.at(-1)!.toFixed(0)} bets/s, br ${figures.br.rate.at(-1)!.toFixed(0)} bets/s (${(ratios.at(-1)! * 100).toFixed(1)} %)`,
    );
  }
  const ratio = pairedRatio(ratios);
  const check = await client.query<{ lines: string; rounds: string; calls: string }>(
    `select (select count(*) from ledger_entries where type = 'bet') as lines,
      (select count(*) from provider_bets) as rounds,
      (select count(*) from provider_transactions where outcome = 'OK' and payload is not null) as calls`,
  );
  const report = await ledgerReport(database);
  const expected = 2 * (warmup + rounds * measured);
  console.log(`seamless-wallet bets on ${database.label}, REGULATION=none against br (every player verified)`);
  console.log(
    `${players} players, ${connections} connections, ${warmup} warm-up bets each, then ${rounds} alternating rounds of ${measured} bets (medians)\n`,
  );
  for (const name of ['none', 'br'] as const) {
    console.log(
      `REGULATION=${name.padEnd(4)}: ${median(figures[name].rate).toFixed(0)} bets/s, server CPU ${median(figures[name].cpu).toFixed(3)} ms and database CPU ${median(figures[name].db).toFixed(3)} ms per bet`,
    );
  }
  console.log(
    `br / none (median over pairs of rounds, both orders, of their ratios' geometric mean): ${(ratio * 100).toFixed(1)} % (target ≥ ${REGULATED_TARGET * 100} %)\n`,
  );
  const row = check.rows[0]!;
  const refused = refusedSoFar();
  console.log(`bet lines: ${row.lines}, rounds: ${row.rounds}, recorded calls: ${row.calls}, refused: ${refused}, failures: ${failures}`);
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  if (
    failures > 0 ||
    refused > 0 ||
    [row.lines, row.rounds, row.calls].some((value) => Number(value) !== expected) ||
    report.problems.length > 0
  ) {
    console.error(`INVALID RUN: expected ${expected} accepted bets with their lines, rounds and records, no failures and a clean ledger.`);
    return true;
  }
  if (ratio < REGULATED_TARGET) {
    console.error(`BELOW TARGET: bets under REGULATION=br reached less than ${REGULATED_TARGET * 100} % of none.`);
    return true;
  }
  return false;
}
