import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../src/app.ts';
import { nextDrawSlot } from '../../src/modules/draws/calendar.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { startApp, testConfig, useApp } from '../helpers/app.ts';
import { backend } from '../helpers/database.ts';
import { fund } from '../withdrawals/helpers.ts';
import { betOk, count, insertGame, ManualClock, openDraw } from './helpers.ts';

const every60 = { intervalS: 60, closeBeforeS: 10 };

describe('draw times and periods', () => {
  test('draws fall on the interval’s marks from midnight UTC, numbered within their day', () => {
    assert.deepEqual(nextDrawSlot(new Date('2026-11-25T12:00:00.200Z'), every60), {
      period: '20261125-0001',
      opensAt: new Date('2026-11-25T12:00:00.200Z'),
      closesAt: new Date('2026-11-25T12:00:50.000Z'),
      drawAt: new Date('2026-11-25T12:01:00.000Z'),
    });
    const previous = { period: '20261125-0041', drawAt: new Date('2026-11-25T12:01:00.000Z') };
    assert.equal(nextDrawSlot(new Date('2026-11-25T12:01:00.300Z'), every60, previous).period, '20261125-0042');
    // Too little of the window left to bet: the next mark instead.
    assert.deepEqual(nextDrawSlot(new Date('2026-11-25T12:00:49.500Z'), every60, previous).drawAt, new Date('2026-11-25T12:02:00.000Z'));
    // The draw at midnight is the new day's first.
    const lastOfDay = nextDrawSlot(new Date('2026-11-25T23:59:00.100Z'), every60, {
      period: '20261125-1439',
      drawAt: new Date('2026-11-25T23:59:00Z'),
    });
    assert.deepEqual([lastOfDay.period, lastOfDay.drawAt], ['20261126-0001', new Date('2026-11-26T00:00:00.000Z')]);
    // A draw never falls before the previous one, whatever the clock says.
    const skewed = nextDrawSlot(new Date('2026-11-25T12:00:30Z'), every60, {
      period: '20261125-0001',
      drawAt: new Date('2026-11-25T12:02:00Z'),
    });
    assert.deepEqual([skewed.period, skewed.drawAt], ['20261125-0002', new Date('2026-11-25T12:03:00.000Z')]);
  });
});

describe('the draw scheduler', () => {
  const clock = new ManualClock('2026-11-25T18:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('maintenance games keep drawing; a disabled game’s open draw is drawn and settled, and no next one opens', async () => {
    const t = ctx();
    const running = await insertGame(t.db, { type: 'double' });
    const paused = await insertGame(t.db, { type: 'dice3', status: 2 });
    const closing = await insertGame(t.db, { type: 'double' });
    const broken = await insertGame(t.db, { type: 'double', settings: { interval_s: 7 } });
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    const first = await t.app.drawScheduler.tick(clock.now());
    assert.equal(first.opened, 3, 'a game whose settings do not pass is not scheduled');
    assert.equal((await player.client.get(`/api/games/${broken.code}`)).status, 404);
    const bet = await betOk(player.client, closing.code, 'red', 5);
    await t.db.execute(sql`update games set status = 0 where id = ${closing.id}`);

    const second = await t.app.drawScheduler.tick(clock.advance(60_000));
    assert.deepEqual([second.drawn, second.settled, second.opened], [3, 1, 2]);
    assert.equal(await count(t.db, sql`select count(*) as n from draw_settlements where id = ${bet.id}`), 1);
    assert.equal((await openDraw(player.client, running.code)).period, '20261125-0002');
    assert.equal((await openDraw(player.client, paused.code)).period, '20261125-0002');
    assert.equal(await count(t.db, sql`select count(*) as n from draws where game_id = ${closing.id}`), 1);
  });

  test('DRAW_SCHEDULER=on starts it when the app is ready and closing the app stops it', async () => {
    const other = await startApp({ DRAW_SCHEDULER: 'on' });
    try {
      assert.equal(other.app.drawScheduler.running, true);
    } finally {
      await other.close();
    }
    assert.equal(other.app.drawScheduler.running, false);
    assert.equal(ctx().app.drawScheduler.running, false, 'off in tests unless asked');
  });

  test(
    'two app instances on one PostgreSQL database: one scheduler leads until it stops, then the other',
    { skip: backend === 'pglite' && 'the embedded database belongs to one process' },
    async () => {
      const t = ctx();
      const game = await insertGame(t.db, { type: 'double' });
      const database = await openDatabase({ databaseUrl: t.database.url, dataDir: '', poolSize: 4 });
      const second = await buildApp(testConfig(), { database, clock, hashing: { memoryCost: 1024, timeCost: 1 } });
      await second.ready();
      try {
        const [a, b] = [t.app.drawScheduler, second.drawScheduler];
        let leader: 'a' | 'b' | undefined;
        for (let round = 0; round < 5; round++) {
          const now = clock.advance(60_000);
          const [ra, rb] = await Promise.all([a.tick(now), b.tick(now)]);
          assert.equal(Number(ra.leader) + Number(rb.leader), 1, `round ${round}: exactly one leads`);
          const current = ra.leader ? 'a' : 'b';
          leader ??= current;
          assert.equal(current, leader, 'the leader keeps leading');
        }
        // One draw per period: nothing was opened or drawn twice.
        assert.equal(await count(t.db, sql`select count(*) as n from draws where game_id = ${game.id}`), 5);
        assert.equal(await count(t.db, sql`select count(*) - count(distinct (game_id, period)) as n from draws`), 0);

        const [stopping, staying] = leader === 'a' ? [a, b] : [b, a];
        await stopping.stop();
        const after = await staying.tick(clock.advance(60_000));
        assert.equal(after.leader, true, 'the other instance takes over once the leader stops');
        assert.equal(await count(t.db, sql`select count(*) as n from draws where game_id = ${game.id} and status = 3`), 5);
      } finally {
        await second.close();
        await database.close();
      }
    },
  );
});
