import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { useApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { insertGame, ManualClock, openDraw } from './helpers.ts';

/**
 * The route fuzz (test/security/route-fuzz.test.ts) runs on a database without games, so the draw
 * routes mostly answer 404 there. Here a game with an open draw exists and the player has money:
 * hostile bodies, headers and query strings reach the bet rules, the SQL function and the lists.
 */
const SEED = 10_2026_11;

const anything = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    '',
    ' ',
    0,
    -1,
    1e21,
    '1e400',
    'NaN',
    '-0',
    '0.001',
    '99999999999999999999',
    'red',
    'big',
    '\u0000',
    'é'.repeat(40),
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

describe('draw routes fed hostile input with a live game', () => {
  const logged: { level: number }[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logged.push(JSON.parse(line) as { level: number });
  });
  const clock = new ManualClock('2026-11-25T21:00:00.000Z');
  const ctx = useApp({ LOG_LEVEL: 'error' }, { clock, logStream });

  test('no bet body, header or list query answers 500 or logs an error', { timeout: 240_000 }, async () => {
    const t = ctx();
    const game = await insertGame(t.db, { type: 'dice3', settings: { min_bet: 0.01, max_bet: 1000000 } });
    const player = await t.player();
    const admin = await t.withRole('super-admin');
    await fund(t, player.id, 100_000n);
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);

    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            selection: fc.oneof(fc.constantFrom('big', 'sum_4', 'triple_6', 'BIG', 'sum_3', 'red'), anything),
            amount: fc.oneof(fc.constantFrom(0.01, '0.01', 1000000, '1000000.01', 1000, '  5 ', '5.', '.5'), anything),
            draw_id: fc.oneof(fc.constant(draw.id), anything),
          },
          { requiredKeys: [] },
        ),
        fc.option(fc.string({ unit: 'binary-ascii', maxLength: 120 }), { nil: undefined }),
        async (body, key) => {
          const headers: Record<string, string> = key === undefined || /[\r\n\0]/.test(key) ? {} : { 'idempotency-key': key };
          const res = await player.client.post(`/api/games/${game.code}/bets`, body, headers);
          assert.ok(
            res.status < 500 && [201, 400, 404, 422].includes(res.status),
            `${JSON.stringify(body)} ${key} → ${res.status} ${res.text}`,
          );
        },
      ),
      { seed: SEED, numRuns: 300 },
    );

    const queryValue = fc.oneof(
      fc.constantFrom('1', '0', '3', '4', '-1', '1e400', 'x', '%00', '20261125-0001', '2026-11-25', ''),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    const paths = [
      `/api/games/${game.code}/draws`,
      '/api/bets',
      '/api/games',
      '/api/admin/draws',
      '/api/admin/bets',
      '/api/admin/settlements',
      '/api/admin/refunds',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.array(
          fc.tuple(
            fc.constantFrom('status', 'game_id', 'draw_id', 'user_id', 'period', 'selection', 'type', 'from', 'to', 'page', 'per_page'),
            queryValue,
          ),
          {
            maxLength: 4,
          },
        ),
        async (path, pairs) => {
          const url = `${path}?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`;
          const res = await (path.startsWith('/api/admin') ? admin : player).client.get(url);
          assert.ok(res.status === 200 || res.status === 422, `${url} → ${res.status} ${res.text}`);
        },
      ),
      { seed: SEED + 1, numRuns: 300 },
    );
    assert.deepEqual(
      logged.filter((line) => line.level >= 50),
      [],
    );
  });
});
