import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { revealDraw, settleDraw } from '../../src/modules/draws/repository.ts';
import { checkGameSettings } from '../../src/modules/draws/settings.ts';
import { maxOdds, winCounts } from '../../src/modules/draws/types/game-type.ts';
import { GAME_TYPES } from '../../src/modules/draws/types/registry.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, DOCUMENTED, insertGame, ManualClock, openDraw, placeDrawBet, type Bet } from './helpers.ts';

describe('odds, house edges and payouts', () => {
  test('each selection wins on the documented number of outcomes and pays the documented odds', () => {
    for (const [code, rows] of Object.entries(DOCUMENTED)) {
      const type = GAME_TYPES.get(code)!;
      const counts = winCounts(type);
      assert.deepEqual(
        type.selections.map((selection) => [selection.code, counts.get(selection.code), selection.odds / 100]),
        rows,
        code,
      );
      // Every selection keeps an edge for the house: odds × wins < outcomes.
      for (const selection of type.selections)
        assert.ok(selection.odds * counts.get(selection.code)! < type.outcomes * 100, selection.code);
    }
  });

  test('settings are checked for their type and completed with defaults', () => {
    assert.deepEqual(checkGameSettings('double', {}), {
      ok: true,
      type: GAME_TYPES.get('double'),
      settings: { intervalS: 60, closeBeforeS: 10, minBet: 100n, maxBet: 100_000n, odds: {} },
      json: { interval_s: 60, close_before_s: 10, min_bet: 1, max_bet: 1000, odds: {} },
    });
    const good = checkGameSettings('dice3', { interval_s: 30, close_before_s: 5, min_bet: '0.5', max_bet: 20, odds: { big: 1.95 } });
    assert.ok(good.ok);
    assert.deepEqual(good.json, { interval_s: 30, close_before_s: 5, min_bet: 0.5, max_bet: 20, odds: { big: 1.95 } });

    const bad = checkGameSettings('dice3', {
      interval_s: 7,
      close_before_s: 'soon',
      min_bet: 10,
      max_bet: 5,
      odds: { big: 2.06, red: 2, small: '1.5555', triple_1: 1 },
      colour: 'red',
    });
    assert.deepEqual(bad, {
      ok: false,
      errors: {
        'settings.colour': [
          'The settings.colour field is not a setting of a dice3 game; the settings are interval_s, close_before_s, min_bet, max_bet, odds.',
        ],
        'settings.interval_s': ['The settings.interval_s field must be between 10 and 86400.'],
        'settings.close_before_s': ['The settings.close_before_s field must be an integer.'],
        'settings.max_bet': ['The max bet field must be at least the min bet, 10.00.'],
        'settings.odds.big': ['The odds of big must not be greater than 2.05: higher odds would pay back more than is bet.'],
        'settings.odds.red': [
          `red is not a selection of dice3; the selections are ${GAME_TYPES.get('dice3')!
            .selections.map((s) => s.code)
            .join(', ')}.`,
        ],
        'settings.odds.small': ['The odds of small must have 0-2 decimal places.'],
        'settings.odds.triple_1': ['The odds of triple_1 must be at least 1.01.'],
      },
    });
    assert.deepEqual(checkGameSettings('double', { interval_s: 7000 }), {
      ok: false,
      errors: {
        'settings.interval_s': ['The settings.interval_s field must divide a day (86400 seconds) evenly, e.g. 30, 60, 300 or 3600.'],
      },
    });
    assert.deepEqual(checkGameSettings('double', { interval_s: 10, close_before_s: 6 }).ok, false);
    assert.deepEqual(checkGameSettings('double', []), { ok: false, errors: { settings: ['The settings field must be an object.'] } });
    assert.deepEqual(checkGameSettings('roulette', {}), {
      ok: false,
      errors: { type: ['The selected type is invalid. Draw game types: dice3, double.'] },
    });
    assert.equal(maxOdds(GAME_TYPES.get('double')!, 'white'), 1500);
  });
});

describe('payouts as the settlement writes them', () => {
  const clock = new ManualClock('2026-11-25T09:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('settle_draw pays odds × amount rounded half-up to the cent, in integers, as settlements and win lines', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double' });
    const player = await t.player();
    await fund(t, player.id, 200_000_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);
    // [amount, odds in hundredths, what it pays], all in cents; odds outside a game's limits too,
    // since the rounding is the settlement's whatever odds a bet was placed at.
    const cases: [bigint, number, bigint][] = [
      [1n, 195, 2n], // 1.95 cents
      [3n, 195, 6n], // 5.85
      [30n, 195, 59n], // 58.5: half-up, not to even
      [70n, 195, 137n], // 136.5
      [10_000n, 200, 20_000n],
      [99_999_999n, 18_100, 18_099_999_819n],
    ];
    const bets: number[] = [];
    for (const [amount, odds] of cases) {
      const placed = await placeDrawBet(t.db, { userId: player.id, gameId: game.id, drawId: draw.id, now: clock.now(), amount, odds });
      assert.equal(placed.outcome, 'placed');
      bets.push(placed.betId!);
    }
    // Drawn red, as the scheduler records a result, then settled by the database.
    assert.ok(await revealDraw(t.db, draw.id, 'c'.repeat(64), { value: 1, slot: 1, color: 'red' }, ['red']));
    assert.equal((await settleDraw(t.db, draw.id, 100)).outcome, 'settled');

    const paid = await rows<{ id: string; payout: string; line: string }>(
      t.db,
      sql`select s.id, s.payout, e.amount as line from draw_settlements s
        join ledger_entries e on e.idempotency_key = 'draw-bet:' || s.id || ':win' where s.draw_id = ${draw.id} order by s.id`,
    );
    assert.deepEqual(
      paid.map((row) => [Number(row.id), BigInt(row.payout), BigInt(row.line)]),
      cases.map(([, , payout], index) => [bets[index], payout, payout]),
    );
  });

  test('odds overrides apply, and each winning payout is rounded half-up to the cent by the database', async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'double', settings: { min_bet: 0.01, odds: { red: 1.95, black: 1.95, white: 13.95 } } });
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    await t.app.drawScheduler.tick(clock.now());
    // Each amount × odds ends in half a cent: half-up gives the expected, half-to-even or truncation would not.
    const placed = [await betOk(player.client, game.code, 'red', 0.3), await betOk(player.client, game.code, 'black', 0.7)];
    placed.push(await betOk(player.client, game.code, 'white', 0.3));
    assert.deepEqual(
      placed.map((bet) => bet.odds),
      [1.95, 1.95, 13.95],
    );
    const expected: Record<string, number> = { red: 0.59, black: 1.37, white: 4.19 };

    await t.app.drawScheduler.tick(clock.set('2026-11-25T09:01:00.000Z'));
    const bets = ((await player.client.get('/api/bets')).json as { data: Bet[] }).data;
    const won = bets.filter((bet) => bet.status === 1);
    assert.equal(won.length, 1, 'exactly one colour wins');
    assert.equal(won[0]!.payout, expected[won[0]!.selection]);
    assert.deepEqual(
      bets.filter((bet) => bet.status === 2).map((bet) => bet.payout),
      [0, 0],
    );
  });
});
