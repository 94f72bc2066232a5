import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, errorsOf, insertGame, ManualClock, openDraw, placeBet, type Bet } from './helpers.ts';

describe('placing a bet', () => {
  const clock = new ManualClock('2026-11-25T10:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('betting is open until the closing instant of the scheduler’s clock, not one millisecond longer', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'dice3', settings: { interval_s: 30, close_before_s: 5 } });
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    await t.app.drawScheduler.tick(clock.set('2026-11-25T10:00:00.000Z'));
    const draw = await openDraw(player.client, game.code);
    assert.deepEqual([draw.closes_at, draw.draw_at], ['2026-11-25T10:00:25.000Z', '2026-11-25T10:00:30.000Z']);

    clock.set('2026-11-25T10:00:24.999Z');
    const last = await betOk(player.client, game.code, 'big', 1);
    assert.equal(last.draw_id, draw.id);

    // No tick has closed the draw yet: the clock alone refuses the bet.
    clock.set('2026-11-25T10:00:25.000Z');
    const late = await placeBet(player.client, game.code, { selection: 'big', amount: 1 });
    assert.equal(late.status, 422, late.text);
    assert.deepEqual(errorsOf(late), {
      draw: [`Betting on draw ${draw.period} has closed; the next draw opens when it is drawn, in about 5 seconds.`],
    });
    assert.equal(await balanceOf(t.db, player.id), 9_900n);

    await t.app.drawScheduler.tick(clock.now());
    assert.equal((await openDraw(player.client, game.code)).status, 1);
    await t.app.drawScheduler.tick(clock.set('2026-11-25T10:00:30.000Z'));
    const next = await openDraw(player.client, game.code);
    assert.equal(next.period, '20261125-0002');

    // A bet naming the past draw is refused rather than moved to the next one.
    const named = await placeBet(player.client, game.code, { selection: 'small', amount: 1, draw_id: draw.id });
    assert.equal(named.status, 422);
    assert.deepEqual(errorsOf(named), { draw_id: [`Betting on that draw has closed; draw ${next.period} is open for bets now.`] });
    const onNext = await placeBet(player.client, game.code, { selection: 'small', amount: 1, draw_id: next.id });
    assert.equal(onNext.status, 201, onNext.text);
  });

  test('refusals: selection, limits, balance, maintenance, disabled; none of them moves money', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double', settings: { min_bet: 1, max_bet: 50 } });
    const player = await t.player();
    await fund(t, player.id, 3_000n);
    await t.app.drawScheduler.tick(clock.now());

    const refusals: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ selection: 'green', amount: 1 }, { selection: ['The selected selection is invalid.'] }],
      [{ selection: 'red', amount: 0.99 }, { amount: ['The amount must be at least 1.00.'] }],
      [{ selection: 'red', amount: 50.01 }, { amount: ['The amount must not be greater than 50.00.'] }],
      [{ selection: 'red', amount: '1.001' }, { amount: ['The amount field must have 0-2 decimal places.'] }],
      [{ selection: 'red', amount: 30.01 }, { amount: ['The amount must not be greater than your balance of 30.00.'] }],
      [{ amount: 1 }, { selection: ['The selection field is required.'] }],
    ];
    for (const [body, errors] of refusals) {
      const res = await placeBet(player.client, game.code, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(errorsOf(res), errors, JSON.stringify(body));
    }
    assert.equal(await balanceOf(t.db, player.id), 3_000n);

    await t.db.execute(sql`update games set status = 2 where id = ${game.id}`);
    const maintenance = await placeBet(player.client, game.code, { selection: 'red', amount: 1 });
    assert.equal(maintenance.status, 422);
    assert.deepEqual(errorsOf(maintenance), { game: ['The game is under maintenance: bets are not taken right now; draws go on.'] });
    // In maintenance the game is still shown and its draws go on.
    assert.equal((await player.client.get(`/api/games/${game.code}`)).status, 200);

    await t.db.execute(sql`update games set status = 0 where id = ${game.id}`);
    const disabled = await placeBet(player.client, game.code, { selection: 'red', amount: 1 });
    assert.equal(disabled.status, 422);
    assert.deepEqual(errorsOf(disabled), { game: ['The game is not available: it has been disabled.'] });
    assert.equal((await placeBet(player.client, 'no-such-game', { selection: 'red', amount: 1 })).status, 404);
    assert.equal((await player.client.get(`/api/games/${game.id}`)).status, 404);
    assert.equal((await player.client.get('/api/games/no-such-game')).status, 404);
    assert.equal(await balanceOf(t.db, player.id), 3_000n);
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => line.type),
      ['adjustment'],
    );
  });

  test('a game whose type changes keeps its open draw of the old type, and takes bets of the new type from the next draw', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);
    await t.db.execute(sql`update games set type = 'dice3', updated_at = now() where id = ${game.id}`);
    const refused = await placeBet(player.client, game.code, { selection: 'big', amount: 1 });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(errorsOf(refused), { draw: ['The game has just changed; bets open again with its next draw, in about 30 seconds.'] });
    await t.app.drawScheduler.tick(clock.set(draw.draw_at));
    const next = await openDraw(player.client, game.code);
    assert.equal(next.type, 'dice3');
    assert.equal((await placeBet(player.client, game.code, { selection: 'big', amount: 1 })).status, 201);
    assert.equal(await balanceOf(t.db, player.id), 900n);
  });

  test('an Idempotency-Key makes a retry answer the first bet; the same key for another bet is refused', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const player = await t.player();
    await fund(t, player.id, 5_000n);
    await t.app.drawScheduler.tick(clock.now());
    const key = { 'idempotency-key': `bet-${player.id}-1` };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => placeBet(player.client, game.code, { selection: 'black', amount: 5 }, key)),
    );
    assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([201]));
    assert.equal(new Set(answers.map((res) => (res.json as { data: Bet }).data.id)).size, 1);
    assert.equal(await balanceOf(t.db, player.id), 4_500n);
    const other = await placeBet(player.client, game.code, { selection: 'red', amount: 5 }, key);
    assert.equal(other.status, 422);
    assert.deepEqual(errorsOf(other), { idempotency_key: ['The Idempotency-Key was already used for a different bet.'] });
    assert.equal(await balanceOf(t.db, player.id), 4_500n);
    // A retry that arrives once the game went into maintenance still gets the bet it placed.
    await t.db.execute(sql`update games set status = 2 where id = ${game.id}`);
    const late = await placeBet(player.client, game.code, { selection: 'black', amount: 5 }, key);
    assert.equal(late.status, 201, late.text);
    assert.equal((late.json as { data: Bet }).data.id, (answers[0]!.json as { data: Bet }).data.id);
  });

  test('a player’s bet list is their own, newest first, and filters by status, game and draw', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const [a, b] = [await t.player(), await t.player()];
    await fund(t, a.id, 5_000n);
    await fund(t, b.id, 5_000n);
    await t.app.drawScheduler.tick(clock.now());
    const first = await betOk(a.client, game.code, 'red', 1);
    const second = await betOk(a.client, game.code, 'black', 2);
    await betOk(b.client, game.code, 'white', 3);
    const mine = (await a.client.get('/api/bets')).json as { data: Bet[]; meta: { total: number } };
    assert.deepEqual(
      mine.data.map((bet) => bet.id),
      [second.id, first.id],
    );
    assert.equal(mine.meta.total, 2);
    const open = (await a.client.get(`/api/bets?status=0&game_id=${game.id}&draw_id=${first.draw_id}`)).json as { data: Bet[] };
    assert.equal(open.data.length, 2);
    assert.equal(((await a.client.get('/api/bets?status=1')).json as { data: Bet[] }).data.length, 0);
    assert.equal((await a.client.get('/api/bets?status=9')).status, 422);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});
