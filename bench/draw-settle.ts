// `npx node bench/draw-settle.ts`: settling a draw of 10,000 bets on PostgreSQL (issue 10: less than
// twice the time of inserting those 10,000 ledger lines in one statement on the same server).
// No HTTP: settling is the scheduler's database call, `settle_draw`, so the bench calls it.
//
// Each round prepares a drawn draw whose bets all win (the worst case: one `win` line per bet,
// "those 10,000 ledger lines"), then times, on the same database, in alternation:
//   settle:  one `settle_draw(draw, 10000)` — a settlement row per bet, a `win` line per winner,
//            every balance updated once — committed;
//   insert:  one `insert … select` of 10,000 `win` lines for the same bets and balances into a
//            copy of ledger_entries (its balance_after figures are made up), committed.
// Figures are medians of the rounds; a second figure settles a mixed draw (a third of the bets win).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BET_STATUS, DRAW_STATUS } from '../src/modules/draws/tables.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { benchDatabase } from './lib/database.ts';
import { cpuSince, databaseCpu } from './lib/pgbench.ts';
import { ledgerReport, positiveCounts } from './lib/rounds.ts';

const { values } = parseArgs({
  options: {
    bets: { type: 'string', default: '10000' },
    users: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
  },
});
const count = positiveCounts(values);
const bets = count('bets');
const users = count('users');
const rounds = count('rounds');
const SEED = 'b'.repeat(64);

const database = await benchDatabase({ name: 'croupier_bench_draws' });
let failed = false;
try {
  const app = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  await migrate(app);
  await app.close();
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  const query = async <T extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await client.query<T>(text, params)).rows;

  // Players with money, written directly: the bench is about settling, not signing up.
  await query(
    `insert into users (name, email, password, remember_nonce) select 'Bench ' || n, 'bench' || n || '@example.com', 'x', 'n' from generate_series(1, $1) n`,
    [users],
  );
  await query(`select ledger_apply(id, 'BRL', 'adjustment', 100000000, null, null, 'bench funds', 'bench-fund:' || id) from users`);
  const [game] = await query<{ id: string }>(
    `insert into games (name, code, type, settings) values ('Bench double', 'bench-double', 'double', '{}') returning id`,
  );

  let made = 0;
  /**
   * A draw with `bets` bets placed through place_draw_bet (round-robin over the players), then
   * drawn as the scheduler would draw it: status drawn, seed revealed, the result that makes
   * `winning` win. The bets are on `winning` when `allWin`, else on red, black, white in turn.
   */
  async function drawnDraw(allWin: boolean): Promise<string> {
    made += 1;
    const [draw] = await query<{ id: string }>(
      `insert into draws (game_id, type, period, opens_at, closes_at, draw_at, seed_hash, seed_encrypted)
       values ($1, 'double', $2, now() - interval '1 hour', now() + interval '1 hour', now() + interval '1 hour', $3, 'sealed')
       returning id`,
      [game!.id, `20261125-${String(made).padStart(4, '0')}`, 'a'.repeat(64)],
    );
    await query(
      `select place_draw_bet(((n - 1) % $3) + 1, $1, 'double', '{}', $2, case when $4 then 'red' else (array['red', 'black', 'white'])[n % 3 + 1] end,
         100 + n % 900, case when $4 or n % 3 <> 0 then 200 else 1400 end, 'BRL', now(), null, null, $6)
       from generate_series(1, $5) n`,
      [game!.id, draw!.id, users, allWin, bets, DRAW_STATUS.open],
    );
    await query(
      `update draws set status = $3, seed_encrypted = null, server_seed = $2, seed_hash = encode(sha256(convert_to($2, 'UTF8')), 'hex'),
         result = '{"value": 1, "slot": 1, "color": "red"}', winning = '["red"]', drawn_at = now() where id = $1`,
      [draw!.id, SEED, DRAW_STATUS.drawn],
    );
    return draw!.id;
  }

  async function timed(work: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    await work();
    return performance.now() - started;
  }

  const drawsToSettle: string[] = [];
  for (let round = 0; round <= rounds; round++) drawsToSettle.push(await drawnDraw(true));
  const mixed = await drawnDraw(false);
  await query('vacuum analyze');

  // The reference insert goes into a copy of ledger_entries (same columns, defaults, checks,
  // indexes and foreign key), so it can commit like the settlement does without its made-up
  // balance_after figures entering the real ledger.
  await query(`create table bench_ledger_entries (like ledger_entries including all)`);
  await query(
    `alter table bench_ledger_entries add foreign key (balance_id, user_id, currency) references balances (id, user_id, currency)`,
  );
  const insertLines = (drawId: string, round: number) =>
    query(
      `insert into bench_ledger_entries (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
       select b.user_id, bal.id, b.currency, 'win', (b.amount * b.odds + 50) / 100, bal.amount + (b.amount * b.odds + 50) / 100, 'draw_bet', b.id,
         'Win: bet #' || b.id || ' on bench-double ' || $2, 'bench-insert:' || $3 || ':' || b.id
       from draw_bets b join balances bal on bal.user_id = b.user_id and bal.currency = b.currency
       where b.draw_id = $1 order by b.id`,
      [drawId, '20261125-0001', round],
    );
  const settle = (drawId: string) =>
    query<{ outcome: string; settled: number; won: number }>('select * from settle_draw($1, $2, $3, $4, $5, $6)', [
      drawId,
      bets,
      DRAW_STATUS.drawn,
      DRAW_STATUS.settled,
      BET_STATUS.won,
      BET_STATUS.lost,
    ]);

  // A first round of each, thrown away: caches and plans warm.
  await insertLines(drawsToSettle[0]!, 0);
  await settle(drawsToSettle[0]!);

  const settleMs: number[] = [];
  const insertMs: number[] = [];
  const settleCpu: number[] = [];
  const insertCpu: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    let cpu = await databaseCpu(client);
    insertMs.push(await timed(() => insertLines(drawsToSettle[round]!, round)));
    insertCpu.push(cpuSince(cpu, await databaseCpu(client)));

    cpu = await databaseCpu(client);
    let outcome: { outcome: string; settled: number; won: number } | undefined;
    settleMs.push(
      await timed(async () => {
        [outcome] = await settle(drawsToSettle[round]!);
      }),
    );
    settleCpu.push(cpuSince(cpu, await databaseCpu(client)));
    if (outcome?.outcome !== 'settled' || outcome.settled !== bets || outcome.won !== bets) {
      console.error(`INVALID ROUND ${round}: ${JSON.stringify(outcome)}`);
      failed = true;
    }
    console.error(`round ${round}: settle ${settleMs.at(-1)!.toFixed(1)} ms, insert ${insertMs.at(-1)!.toFixed(1)} ms`);
  }
  let mixedOutcome: { settled: number; won: number } | undefined;
  const mixedMs = await timed(async () => {
    [mixedOutcome] = await settle(mixed);
  });

  const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
  const settleMedian = median(settleMs);
  const insertMedian = median(insertMs);
  const ratio = settleMedian / insertMedian;
  const [check] = await query<{ wins: string; settlements: string }>(
    `select (select count(*) from ledger_entries where type = 'win') as wins, (select count(*) from draw_settlements) as settlements`,
  );
  await client.end();
  const report = await ledgerReport(database);

  console.log(`draw settlement on ${database.label}`);
  console.log(`${bets} bets per draw from ${users} players, every bet winning; ${rounds} rounds after one warm-up (medians)\n`);
  console.log(
    `settle_draw (settlement rows + win lines + balances, committed): ${settleMedian.toFixed(1)} ms (database CPU ${median(settleCpu).toFixed(0)} ms)`,
  );
  console.log(
    `insert of the same ${bets} ledger lines in one statement:        ${insertMedian.toFixed(1)} ms (database CPU ${median(insertCpu).toFixed(0)} ms)`,
  );
  console.log(`ratio: ${ratio.toFixed(2)} (target < 2)`);
  console.log(`a mixed draw (${mixedOutcome?.won ?? 0} of ${mixedOutcome?.settled ?? 0} bets winning): ${mixedMs.toFixed(1)} ms\n`);
  console.log(`win lines: ${check!.wins}, settlements: ${check!.settlements}`);
  console.log(
    `ledger:verify: ${report.problems.length === 0 ? 'every balance matches its ledger' : `${report.problems.length} difference(s)`}`,
  );
  const expectedWins = (rounds + 1) * bets + (mixedOutcome?.won ?? 0);
  if (Number(check!.wins) !== expectedWins || Number(check!.settlements) !== (rounds + 2) * bets || report.problems.length > 0) {
    console.error(`INVALID RUN: expected ${expectedWins} win lines, ${(rounds + 2) * bets} settlements and a clean ledger.`);
    failed = true;
  } else if (ratio >= 2) {
    console.error('BELOW TARGET: settling took twice the time of the plain insert or more.');
    failed = true;
  }
} finally {
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
