import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { count, errorsOf, insertGame, ManualClock, openDraw, placeBet, type Bet, type Draw } from './helpers.ts';

describe('draw bets and cancels under concurrency', () => {
  const clock = new ManualClock('2026-11-25T14:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('50 concurrent bets of 2.00 against 50.00: 25 placed, 25 refused on amount, the balance ends at 0 and never below', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const player = await t.player();
    await fund(t, player.id, 5_000n);
    await t.app.drawScheduler.tick(clock.now());
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => placeBet(player.client, game.code, { selection: ['red', 'black', 'white'][i % 3], amount: 2 })),
    );
    assert.deepEqual(answers.map((res) => res.status).sort(), [
      ...Array.from({ length: 25 }, () => 201),
      ...Array.from({ length: 25 }, () => 422),
    ]);
    for (const res of answers.filter((answer) => answer.status === 422)) {
      assert.deepEqual(Object.keys(errorsOf(res)), ['amount'], res.text);
      assert.match(errorsOf(res).amount![0]!, /^The amount must not be greater than your balance of \d+\.\d\d\.$/);
    }
    assert.equal(await balanceOf(t.db, player.id), 0n);
    const lines = await ledgerOf(t.db, player.id);
    assert.equal(lines.filter((line) => line.type === 'bet').length, 25);
    assert.ok(lines.every((line) => line.balance_after >= 0n));
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('10 concurrent cancels of a draw: one cancels, nine get 409, every bet is refunded once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const game = await insertGame(t.db, { type: 'dice3' });
    const players = [await t.player(), await t.player(), await t.player()];
    for (const player of players) await fund(t, player.id, 1_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(players[0]!.client, game.code);
    for (const [i, player] of players.entries()) {
      for (const selection of ['big', 'sum_10', 'triple_6'].slice(0, i + 1)) {
        assert.equal((await placeBet(player.client, game.code, { selection, amount: 1.5 })).status, 201);
      }
    }

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'Dice table fault' })),
    );
    assert.deepEqual(answers.map((res) => res.status).sort(), [200, ...Array.from({ length: 9 }, () => 409)]);
    const cancelled = (answers.find((res) => res.status === 200)!.json as { data: Draw & { bets_count: number; bets_total: number } }).data;
    assert.deepEqual(
      [cancelled.status, cancelled.cancel_reason, cancelled.bets_count, cancelled.bets_total],
      [4, 'Dice table fault', 6, 9],
    );
    assert.ok(cancelled.server_seed !== null, 'a cancelled draw reveals its seed');
    assert.deepEqual(
      (answers.find((res) => res.status === 409)!.json as { message: string }).message,
      'A draw that is cancelled cannot be cancelled.',
    );

    for (const player of players) {
      assert.equal(await balanceOf(t.db, player.id), 1_000n);
      const bets = ((await player.client.get('/api/bets')).json as { data: Bet[] }).data;
      assert.ok(bets.every((bet) => bet.status === 3 && bet.payout === null && bet.settled_at !== null));
    }
    assert.equal(await count(t.db, sql`select count(*) as n from ledger_entries where type = 'bet_refund'`), 6);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_refunds where draw_id = ${draw.id}`), 6);

    // Its seed can be checked against the hash published at opening; there is no result to compare.
    const verified = (await players[0]!.client.get(`/api/draws/${draw.id}/verify`)).json as { data: Record<string, unknown> };
    assert.deepEqual([verified.data.hash_matches, verified.data.result_matches, verified.data.verified], [true, null, true]);
    // A cancelled draw is never drawn, and the next draw opens.
    const after = await t.app.drawScheduler.tick(clock.now());
    assert.equal(after.drawn, 0);
    assert.notEqual((await openDraw(players[0]!.client, game.code)).id, draw.id);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('bets racing a cancel: every bet that got in is refunded, every one refused moved nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const game = await insertGame(t.db, { type: 'double' });
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);
    const bets = Array.from({ length: 20 }, () => placeBet(player.client, game.code, { selection: 'red', amount: 1, draw_id: draw.id }));
    const cancel = admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'race' });
    const answers = await Promise.all(bets);
    assert.equal((await cancel).status, 200);
    const placed = answers.filter((res) => res.status === 201).length;
    assert.equal(placed + answers.filter((res) => res.status === 422).length, 20);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_refunds where draw_id = ${draw.id}`), placed);
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
  });

  test('a drawn draw cannot be cancelled; an unknown one is 404', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const game = await insertGame(t.db, { type: 'double', settings: { interval_s: 60 } });
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(admin.client, game.code);
    await t.app.drawScheduler.tick(clock.set(draw.draw_at));
    const res = await admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'too late' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.json, { message: 'A draw that is settled cannot be cancelled.' });
    const unknown = await admin.client.post('/api/admin/draws/999999/cancel', {});
    assert.equal(unknown.status, 404);
  });
});
