// `npx node bench/draw-bets.ts`: draw bets under REGULATION=none against REGULATION=br with every
// limit set (issue 23: br at least 85 % of none), in one run on one PostgreSQL database.
// No HTTP: a draw bet is one call of `place_draw_bet` (its service adds only the game's rules, the
// same under both values), so the bench calls it as the service does, with `p_regulated` false or
// true, in alternating rounds of a fixed length over `--connections` connections, each placing
// 0.01 bets for its own players. Under br each bet locks the balance row and runs
// responsible_gambling_refusal: exclusions, the national list (holding 100,000 other CPFs),
// the limits and the net loss windows. Figures: bets per second, the median of the rounds; the ratio held to the target pairs rounds of both orders (pairedRatio, bench/lib/rounds.ts).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { DRAW_STATUS } from '../src/modules/draws/tables.ts';
import { openDatabase } from '../src/platform/db/client.ts';
import { migrate } from '../src/platform/db/migrate.ts';
import { benchDatabase } from './lib/database.ts';
import { pairedRatio, positiveCounts } from './lib/rounds.ts';

const { values } = parseArgs({
  options: {
    players: { type: 'string', default: '200' },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
  },
});
const count = positiveCounts(values);
const players = count('players');
const connections = count('connections');
const rounds = count('rounds');
const seconds = count('seconds');

const database = await benchDatabase({ name: 'croupier_bench_draw_bets' });
let failed = false;
try {
  const app = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir, poolSize: 1 });
  await migrate(app);
  await app.close();
  const pool = new pg.Pool({ connectionString: database.databaseUrl, max: connections });
  // The database is dropped with force at the end; a connection the pool is still closing then
  // reports its termination, which must not turn the bench's exit into a crash after its figures.
  pool.on('error', () => {});
  const game = (
    await pool.query<{ id: string }>(
      `insert into games (name, code, type, status, sort, settings) values ('Bench dice', 'bench-dice', 'dice3', 1, 0, '{}') returning id`,
    )
  ).rows[0]!.id;
  const draw = (
    await pool.query<{ id: string }>(
      `insert into draws (game_id, type, period, status, opens_at, closes_at, draw_at, seed_hash, seed_encrypted)
       values ($1, 'dice3', '20261128-0001', $2, now() - interval '1 minute', now() + interval '1 day', now() + interval '1 day', repeat('a', 64), 'bench')
       returning id`,
      [game, DRAW_STATUS.open],
    )
  ).rows[0]!.id;
  await pool.query(
    `insert into users (name, email, password, remember_nonce)
     select 'Player ' || g, 'player' || g || '@bench.test', 'x', md5(g::text) from generate_series(1, $1::int) g`,
    [players],
  );
  await pool.query(`select ledger_apply(id, 'BRL', 'adjustment', 100000000, null, null, 'bench funds', 'bench-fund:' || id) from users`);
  // Every player verified, every limit set high enough never to refuse; the national list holds others.
  await pool.query(
    `insert into user_identities (user_id, cpf, full_name, birth_date, status, verifier, verified_at)
     select id, lpad(id::text, 11, '0'), 'Bench Player', date '1990-01-01', 'verified', 'manual', now() from users`,
  );
  await pool.query(
    `insert into user_limits (user_id, field, value)
     select u.id, f.field, case when f.field = 'session_minutes' then 1440 else 100000000000 end
     from users u cross join unnest(array['deposit_daily', 'deposit_weekly', 'deposit_monthly', 'loss_daily', 'loss_weekly',
       'loss_monthly', 'session_minutes']) f(field)`,
  );
  await pool.query(`insert into national_exclusions select lpad((90000000000 + g)::text, 11, '0') from generate_series(1, 100000) g`);
  await pool.query('vacuum analyze');
  const userIds = (await pool.query<{ id: string }>('select id from users order by id')).rows.map((row) => row.id);

  const bet = (client: pg.PoolClient, user: string, regulated: boolean) =>
    client.query<{ outcome: string }>({
      name: regulated ? 'bet_br' : 'bet_none',
      text: `select outcome from place_draw_bet($1::bigint, $2::bigint, 'dice3', '{}'::jsonb, $3::bigint, 'big', 1::bigint, 195,
        'BRL', now(), null, null, $4::smallint, $5::boolean)`,
      values: [user, game, draw, DRAW_STATUS.open, regulated],
    });

  async function round(regulated: boolean): Promise<number> {
    const until = performance.now() + seconds * 1000;
    let placed = 0;
    await Promise.all(
      Array.from({ length: connections }, async (_, worker) => {
        const client = await pool.connect();
        try {
          const mine = userIds.filter((_, i) => i % connections === worker);
          for (let i = 0; performance.now() < until; i++) {
            const answer = await bet(client, mine[i % mine.length]!, regulated);
            if (answer.rows[0]?.outcome !== 'placed') throw new Error(`bet answered ${JSON.stringify(answer.rows[0])}`);
            placed += 1;
          }
        } finally {
          client.release();
        }
      }),
    );
    return placed / seconds;
  }

  await round(false);
  await round(true);
  const none: number[] = [];
  const br: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // Alternating order, so neither value always runs on the warmer database.
    if (i % 2 === 0) {
      none.push(await round(false));
      br.push(await round(true));
    } else {
      br.push(await round(true));
      none.push(await round(false));
    }
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const [n, b] = [median(none), median(br)];
  // Each round's ratio, paired with the next round's (the other order): bench/lib/rounds.ts.
  const ratio = pairedRatio(none.map((rate, i) => br[i]! / rate));
  console.log(
    `draw bets (place_draw_bet) on ${database.label}, ${connections} connections, ${players} players, ${rounds} rounds of ${seconds} s`,
  );
  console.log(`  REGULATION=none  ${n.toFixed(0)} bets/s   (rounds: ${none.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`  REGULATION=br    ${b.toFixed(0)} bets/s   (rounds: ${br.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`  br / none        ${(ratio * 100).toFixed(1)} %  (target ≥ 85 %; median over pairs of rounds, both orders)`);
  if (ratio < 0.85) failed = true;
  await pool.end();
} finally {
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
