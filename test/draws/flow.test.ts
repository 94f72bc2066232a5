import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, errorsOf, insertGame, ManualClock, openDraw, placeBet, type Bet, type Draw } from './helpers.ts';

describe('a draw game from the countdown to the payout', () => {
  const clock = new ManualClock('2026-11-25T12:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('a player sees the draw count down, bets, sees the result and the payout in the statement, and verifies the draw', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double', settings: { interval_s: 60, close_before_s: 10, min_bet: 1, max_bet: 500 } });
    const player = await t.player();
    await fund(t, player.id, 10_000n);

    const first = await t.app.drawScheduler.tick(clock.set('2026-11-25T12:00:00.200Z'));
    assert.deepEqual(first, { leader: true, closed: 0, drawn: 0, settled: 0, opened: 1, failures: 0 });

    const listed = await player.client.get('/api/games');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      (listed.json as { data: { code: string; type: string; status: number }[] }).data.map((g) => [g.code, g.type, g.status]),
      [[game.code, 'double', 1]],
    );

    const shown = await player.client.get(`/api/games/${game.code}`);
    assert.equal(shown.status, 200, shown.text);
    const detail = (shown.json as { data: Record<string, unknown> }).data;
    assert.deepEqual(detail.selections, [
      { code: 'red', name: 'Red (1–7)', odds: 2 },
      { code: 'black', name: 'Black (8–14)', odds: 2 },
      { code: 'white', name: 'White (0)', odds: 14 },
    ]);
    assert.deepEqual([detail.interval_s, detail.close_before_s, detail.min_bet, detail.max_bet], [60, 10, 1, 500]);
    const draw = detail.draw as Draw;
    assert.equal(draw.period, '20261125-0001');
    assert.equal(draw.status, 0);
    assert.equal(draw.closes_at, '2026-11-25T12:00:50.000Z');
    assert.equal(draw.draw_at, '2026-11-25T12:01:00.000Z');
    assert.deepEqual([draw.closes_in, draw.draws_in], [50, 60]);
    assert.match(draw.seed_hash, /^[0-9a-f]{64}$/);
    assert.equal(draw.server_seed, null, 'the seed stays sealed until the draw');
    assert.equal(draw.result, null);

    const red = await betOk(player.client, game.code, 'red', 10);
    const white = await betOk(player.client, game.id, 'white', '2.5');
    assert.deepEqual([red.status, red.payout, red.odds, red.period, red.draw_id], [0, null, 2, '20261125-0001', draw.id]);
    assert.equal(await balanceOf(t.db, player.id), 10_000n - 1_250n);

    clock.set('2026-11-25T12:00:50.000Z');
    const late = await placeBet(player.client, game.code, { selection: 'black', amount: 1 });
    assert.equal(late.status, 422, late.text);
    assert.deepEqual(Object.keys(errorsOf(late)), ['draw']);

    assert.equal((await t.app.drawScheduler.tick(clock.now())).closed, 1);
    const drawn = await t.app.drawScheduler.tick(clock.set('2026-11-25T12:01:00.000Z'));
    assert.deepEqual(drawn, { leader: true, closed: 0, drawn: 1, settled: 2, opened: 1, failures: 0 });

    const history = await player.client.get(`/api/games/${game.code}/draws`);
    assert.equal(history.status, 200, history.text);
    const [past] = (history.json as { data: Draw[] }).data;
    assert.equal(past!.id, draw.id);
    assert.equal(past!.status, 3);
    assert.ok(past!.server_seed !== null);
    // The revealed seed is the one whose hash was published when the draw opened.
    assert.equal(createHash('sha256').update(past!.server_seed).digest('hex'), draw.seed_hash);
    // The result follows from the seed and the period: the first 32-bit word of the HMAC below 2^32 − 2^32 mod 15.
    const hmac = createHmac('sha256', past!.server_seed).update(past!.period).digest();
    let slot = -1;
    for (let offset = 0; slot < 0 && offset < 32; offset += 4) {
      const word = hmac.readUInt32BE(offset);
      if (word < 2 ** 32 - (2 ** 32 % 15)) slot = word % 15;
    }
    const colour = slot === 0 ? 'white' : slot <= 7 ? 'red' : 'black';
    assert.deepEqual(past!.result, { value: slot, slot, color: colour });
    assert.deepEqual(past!.winning, [colour]);

    const bets = (await player.client.get('/api/bets')).json as { data: Bet[] };
    const byId = new Map(bets.data.map((bet) => [bet.id, bet]));
    const expected = (bet: Bet, odds: number) =>
      bet.selection === colour ? { status: 1, payout: bet.amount * odds } : { status: 2, payout: 0 };
    for (const [placed, odds] of [
      [red, 2],
      [white, 14],
    ] as const) {
      const settled = byId.get(placed.id)!;
      assert.deepEqual({ status: settled.status, payout: settled.payout }, expected(placed, odds));
      assert.ok(settled.settled_at !== null);
    }
    const paid = BigInt(Math.round((colour === 'red' ? 20 : colour === 'white' ? 35 : 0) * 100));
    assert.equal(await balanceOf(t.db, player.id), 10_000n - 1_250n + paid);
    const lines = (await ledgerOf(t.db, player.id)).map((line) => [line.type, line.amount, line.reference_id]);
    assert.deepEqual(lines, [
      ['adjustment', 10_000n, null],
      ['bet', -1_000n, red.id],
      ['bet', -250n, white.id],
      ...(paid > 0n ? [['win', paid, colour === 'red' ? red.id : white.id]] : []),
    ]);

    const verified = await player.client.get(`/api/draws/${draw.id}/verify`);
    assert.equal(verified.status, 200, verified.text);
    const check = (verified.json as { data: Record<string, unknown> }).data;
    assert.deepEqual(
      [check.verified, check.hash_matches, check.result_matches, check.value, check.hmac],
      [true, true, true, slot, hmac.toString('hex')],
    );

    // The next draw is open already, numbered on.
    assert.equal((await openDraw(player.client, game.code)).period, '20261125-0002');
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});
