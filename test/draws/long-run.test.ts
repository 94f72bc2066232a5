import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { backend } from '../helpers/database.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { count, insertGame, ManualClock, placeBet, type Bet, type Draw } from './helpers.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

/** A small deterministic generator, so a failing run can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const SELECTIONS: Record<string, string[]> = {
  dice3: ['big', 'small', 'odd', 'even', 'sum_9', 'sum_10', 'sum_11', 'any_triple', 'triple_3'],
  double: ['red', 'black', 'white'],
};

describe('a long run of draws', () => {
  const clock = new ManualClock('2026-11-25T23:45:00.000Z');
  const ctx = useApp({}, { clock });

  test('bets, wins, losses and cancels over 90 ticks leave every balance explained by its ledger', { timeout: 300_000 }, async () => {
    const t = ctx();
    const random = generator(20261125);
    const admin = await t.withRole('super-admin');
    const games = [
      {
        ...(await insertGame(t.db, { type: 'dice3', settings: { interval_s: 30, close_before_s: 5, min_bet: 0.1, max_bet: 20 } })),
        type: 'dice3',
      },
      {
        ...(await insertGame(t.db, { type: 'double', settings: { interval_s: 60, close_before_s: 10, min_bet: 0.1, max_bet: 20 } })),
        type: 'double',
      },
    ];
    const players: SignedIn[] = [];
    for (let i = 0; i < 5; i++) {
      const player = await t.player();
      await fund(t, player.id, 20_000n);
      players.push(player);
    }

    let placed = 0;
    let cancelled = 0;
    // 90 ticks of 10 s cross midnight UTC, so periods start again at 0001 on the next day.
    for (let tick = 0; tick < 90; tick++) {
      const report = await t.app.drawScheduler.tick(clock.advance(10_000));
      assert.equal(report.failures, 0, `tick ${tick}`);
      for (const player of players) {
        if (random() < 0.2) continue;
        const game = games[Math.floor(random() * games.length)]!;
        const options = SELECTIONS[game.type]!;
        const selection = options[Math.floor(random() * options.length)]!;
        const amount = (10 + Math.floor(random() * 1000)) / 100;
        const res = await placeBet(player.client, game.code, { selection, amount });
        if (res.status === 201) placed += 1;
        else assert.equal(res.status, 422, res.text);
      }
      if (tick % 17 === 16) {
        const game = games[tick % 2]!;
        const shown = (await admin.client.get(`/api/games/${game.code}`)).json as { data: { draw: Draw | null } };
        if (shown.data.draw !== null) {
          const res = await admin.client.post(`/api/admin/draws/${shown.data.draw.id}/cancel`, { reason: 'long run' });
          assert.equal(res.status, 200, res.text);
          cancelled += 1;
        }
      }
    }
    // Let every draw still open be drawn and settled.
    for (let i = 0; i < 8; i++) await t.app.drawScheduler.tick(clock.advance(10_000));
    await t.db.execute(sql`update games set status = 0`);
    await t.app.drawScheduler.tick(clock.advance(120_000));

    assert.ok(placed > 250, `bets placed: ${placed}`);
    assert.ok(cancelled >= 3, `draws cancelled: ${cancelled}`);
    assert.equal(await count(t.db, sql`select count(*) as n from draws where status not in (3, 4)`), 0);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_bets`), placed);
    // Every bet ended exactly once: a settlement or a refund, never both, never neither.
    assert.equal(
      await count(
        t.db,
        sql`select count(*) as n from draw_bets b where (select count(*) from draw_settlements s where s.id = b.id) + (select count(*) from draw_refunds r where r.id = b.id) <> 1`,
      ),
      0,
    );
    assert.ok(await count(t.db, sql`select count(*) as n from draws where period like '20261126-%'`), 'draws of the next day');
    assert.equal(await count(t.db, sql`select count(*) as n from draws where period = '20261126-0001'`), 2);

    for (const player of players) {
      const bets: Bet[] = [];
      for (let page = 1; ; page++) {
        const res = (await player.client.get(`/api/bets?per_page=100&page=${page}`)).json as { data: Bet[]; meta: { last_page: number } };
        bets.push(...res.data);
        if (page >= res.meta.last_page) break;
      }
      let cents = 20_000n;
      for (const bet of bets) {
        cents -= BigInt(Math.round(bet.amount * 100));
        if (bet.status === 1) cents += BigInt(Math.round(bet.payout! * 100));
        if (bet.status === 3) cents += BigInt(Math.round(bet.amount * 100));
        assert.ok([1, 2, 3].includes(bet.status), `bet ${bet.id} ended`);
      }
      assert.equal(await balanceOf(t.db, player.id), cents, `player ${player.id}`);
    }

    const report = await verifyLedger(t.db);
    assert.deepEqual(report.problems, []);
    if (backend === 'postgres') {
      const cli = spawnSync(process.execPath, [...NODE_FLAGS, 'bin/croupier.js', 'ledger:verify'], {
        env: {
          PATH: process.env.PATH ?? '',
          APP_KEY: Buffer.alloc(32, 7).toString('base64'),
          DATABASE_URL: t.database.url!,
          DATA_DIR: '/tmp/croupier-draws-verify',
        },
        encoding: 'utf8',
      });
      assert.equal(cli.status, 0, `${cli.stdout}${cli.stderr}`);
      assert.match(cli.stdout, /every balance matches its ledger/);
    }
  });
});
