import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { createGame as adminGame, createProvider as adminProvider } from '../games/support.ts';
import { useApp, type Client, type TestApp } from '../helpers/app.ts';
import { insertGame, ManualClock } from '../draws/helpers.ts';
import { demoDriver, hubDriver, send, type WalletDriver } from '../games/helpers.ts';
import { betAt, seat, type Table } from '../games/kit.ts';
import { HubLikeAdapter } from '../games/hub-adapter.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, setLimits, status, verifiedPlayer } from './support.ts';

const HOUR = 3600_000;
const UNSET = { message: 'Set your loss and time limits before you deposit or play.' };

/** A verified player at a provider's table (funded with 100.00), with `limits` set. */
async function regulatedSeat(t: TestApp, driver: WalletDriver, limits: Record<string, unknown>): Promise<Table> {
  const admin = (await t.withRole('super-admin')).client;
  const table = await seat(t, driver);
  assert.equal((await table.player.client.put('/api/user/identity', identityBody())).status, 200);
  assert.equal((await admin.post(`/api/admin/users/${table.player.id}/identity/approve`)).status, 200);
  await setLimits(table.player.client, limits);
  return table;
}

async function drawBet(client: Client, code: string, amount: number | string) {
  return client.post(`/api/games/${code}/bets`, { selection: 'big', amount });
}

describe('REGULATION=br: limits', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('GET /api/user/limits: nothing set, nothing pending', async () => {
    const t = ctx();
    const player = await t.player();
    const res = await player.client.get('/api/user/limits');
    assert.deepEqual(status(res), [
      200,
      {
        data: {
          deposit_daily: null,
          deposit_weekly: null,
          deposit_monthly: null,
          loss_daily: null,
          loss_weekly: null,
          loss_monthly: null,
          session_minutes: null,
          pending: [],
        },
      },
    ]);
  });

  test('a new or lower limit applies at once; a higher one or a removal after 24 hours, shown as pending until then', async () => {
    const t = ctx();
    const player = await t.player();
    const start = clock.now();
    // No session time here: it would end this session long before the 24 hours (test/regulation/session-time.test.ts).
    let data = await setLimits(player.client, { loss_daily: 50, loss_weekly: 60, deposit_weekly: '200.50' });
    assert.deepEqual([data.loss_daily, data.loss_weekly, data.deposit_weekly, data.pending], [50, 60, 200.5, []]);
    data = await setLimits(player.client, { loss_daily: 20 });
    assert.deepEqual([data.loss_daily, data.pending], [20, []]);
    data = await setLimits(player.client, { loss_daily: 80, deposit_weekly: null });
    const effective = new Date(start.getTime() + 24 * HOUR).toISOString();
    assert.equal(data.loss_daily, 20);
    assert.equal(data.deposit_weekly, 200.5);
    assert.deepEqual(data.pending, [
      { field: 'deposit_weekly', value: null, effective_at: effective },
      { field: 'loss_daily', value: 80, effective_at: effective },
    ]);
    clock.advance(24 * HOUR - 1);
    data = (await player.client.get('/api/user/limits')).json as Record<string, unknown>;
    assert.equal((data.data as Record<string, unknown>).loss_daily, 20);
    clock.advance(1);
    const after = ((await player.client.get('/api/user/limits')).json as { data: Record<string, unknown> }).data;
    assert.deepEqual([after.loss_daily, after.deposit_weekly, after.pending], [80, null, []]);
    // A lower limit while a raise waits applies at once and drops the raise.
    await setLimits(player.client, { loss_daily: 100 });
    data = await setLimits(player.client, { loss_daily: 10 });
    assert.deepEqual([data.loss_daily, data.pending], [10, []]);
    clock.set('2026-11-27T10:00:00.000Z');
  });

  test('bad values are 422 by field', async () => {
    const t = ctx();
    const player = await t.player();
    const res = await player.client.put('/api/user/limits', { loss_daily: -1, session_minutes: 1441 });
    assert.equal(res.status, 422, res.text);
    const errors = (res.json as { errors: Record<string, string[]> }).errors;
    assert.deepEqual(Object.keys(errors).sort(), ['loss_daily', 'session_minutes']);
    assert.equal(errors.session_minutes![0], 'The session minutes field must be an integer between 1 and 1440.');
  });

  test('no top-up, launch or bet before a loss limit and the session time are set', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    assert.equal((await player.client.put('/api/user/identity', identityBody())).status, 200);
    assert.equal((await admin.post(`/api/admin/users/${player.id}/identity/approve`)).status, 200);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    assert.deepEqual(status(await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 })), [403, UNSET]);
    assert.deepEqual(status(await drawBet(player.client, game.code, 1)), [403, UNSET]);
    await setLimits(player.client, { loss_daily: 100 });
    assert.deepEqual(status(await drawBet(player.client, game.code, 1)), [403, UNSET], 'the session time is missing');
    await setLimits(player.client, { session_minutes: 30 });
    assert.equal((await drawBet(player.client, game.code, 1)).status, 201);
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 })).status, 201);
  });

  test('a deposit limit refuses exactly at its edge and says how much is left', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin);
    await setLimits(player.client, { deposit_daily: 100 });
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 60 })).status, 201);
    const over = await player.client.post('/api/topups', { payment_method_id: 1, amount: '40.01' });
    const message = 'This top-up would exceed your daily deposit limit of 100.00: you can deposit 40.00 more today.';
    assert.deepEqual(status(over), [422, { message, errors: { amount: [message] } }]);
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 40 })).status, 201);
    const none = await player.client.post('/api/topups', { payment_method_id: 1, amount: 1 });
    assert.match((none.json as { message: string }).message, /you can deposit 0\.00 more today\.$/);
  });

  test('a loss limit refuses a draw bet exactly at its edge, the smallest window named', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const player = await verifiedPlayer(t, admin);
    await fund(t, player.id, 10_000n);
    await setLimits(player.client, { loss_daily: 10, loss_weekly: 12 });
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    assert.equal((await drawBet(player.client, game.code, 6)).status, 201);
    const over = await drawBet(player.client, game.code, '4.01');
    const message = 'This bet would exceed your daily loss limit of 10.00: you can stake 4.00 more today.';
    assert.deepEqual(status(over), [422, { message, errors: { amount: [message] } }]);
    await setLimits(player.client, { loss_weekly: 8 });
    const weekly = await drawBet(player.client, game.code, '2.01');
    assert.equal(
      (weekly.json as { message: string }).message,
      'This bet would exceed your weekly loss limit of 8.00: you can stake 2.00 more this week.',
    );
    assert.equal((await drawBet(player.client, game.code, 2)).status, 201);
    assert.equal(await balanceOf(t.db, player.id), 10_000n - 800n);
  });

  for (const driver of [demoDriver, hubDriver] satisfies WalletDriver[]) {
    test(`a provider bet (${driver.adapter}) over the loss limit is refused with the protocol's limit status; wins are paid`, async () => {
      const t = ctx();
      const table = await regulatedSeat(t, driver, { loss_daily: 10, session_minutes: 60 });
      const first = await send(t, driver, table.provider, betAt(table, 1_000n));
      assert.equal(first.answer?.status, driver.word('OK'), first.res.text);
      const over = await send(t, driver, table.provider, betAt(table, 1n));
      assert.equal(over.answer?.status, driver.word('LIMIT_REACHED'), over.res.text);
      assert.equal(await balanceOf(t.db, table.player.id), 9_000n);
    });

    test(`20 parallel provider bets (${driver.adapter}) never take the net loss over the limit`, async () => {
      const t = ctx();
      const table = await regulatedSeat(t, driver, { loss_daily: 10, session_minutes: 60 });
      const answers = await Promise.all(Array.from({ length: 20 }, () => send(t, driver, table.provider, betAt(table, 100n))));
      const statuses = answers.map((sent) => sent.answer?.status);
      assert.equal(statuses.filter((s) => s === driver.word('OK')).length, 10, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === driver.word('LIMIT_REACHED')).length, 10, JSON.stringify(statuses));
      assert.equal(await balanceOf(t.db, table.player.id), 9_000n);
    });
  }
});

describe('REGULATION=br: self-exclusion', () => {
  // Today, not a fixed date: the admin's user record reads the exclusion against the database's
  // own now(), and a fixed date's week of exclusion was over in real time once that week passed.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 1000) * 1000).toISOString());
  const ctx = useApp({ REGULATION: 'br' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('needs a confirmed password, signs the player out everywhere, refuses money in and play, cannot be shortened', async () => {
    const t = ctx();
    const table = await regulatedSeat(t, demoDriver, { loss_daily: 1000, session_minutes: 600 });
    const client = table.player.client;
    assert.equal((await client.post('/api/user/self-exclusion', { period: '1w' })).status, 423);
    assert.equal((await client.post('/api/user/confirm-password', { password: table.player.password })).status, 201);
    const res = await client.post('/api/user/self-exclusion', { period: '1w' });
    const until = new Date(clock.now().getTime() + 7 * 24 * HOUR).toISOString();
    assert.deepEqual(status(res), [201, { data: { until, permanent: false } }]);
    assert.equal((await client.get('/api/user')).status, 401, 'signed out');

    // The provider's game session opened before the exclusion takes no bet.
    const bet = await send(t, demoDriver, table.provider, betAt(table, 100n));
    assert.equal(bet.answer?.status, demoDriver.word('TOKEN_EXPIRED'), bet.res.text);

    const again = t.client();
    await again.csrf();
    assert.equal((await again.post('/api/login', { email: table.player.email, password: table.player.password })).status, 200);
    const refused = { message: `Your account is self-excluded until ${until}.` };
    assert.deepEqual(status(await again.post('/api/topups', { payment_method_id: 1, amount: 10 })), [403, refused]);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    assert.deepEqual(status(await drawBet(again, game.code, 1)), [403, refused]);
    assert.equal(await balanceOf(t.db, table.player.id), 10_000n);

    assert.equal((await again.post('/api/user/confirm-password', { password: table.player.password })).status, 201);
    assert.equal((await again.post('/api/user/self-exclusion', { period: '24h' })).status, 409);
    const admin = (await t.withRole('super-admin')).client;
    const record = (await admin.get(`/api/admin/users/${table.player.id}`)).json as { data: Record<string, unknown> };
    assert.deepEqual([record.data.self_excluded_until, record.data.self_excluded_permanently, record.data.listed], [until, false, false]);
    assert.equal((record.data.limits as Record<string, unknown>).loss_daily, 1000);
    const excluded = (await admin.get('/api/admin/users?excluded=1&per_page=100')).json as { data: { id: number }[] };
    assert.ok(excluded.data.some((user) => user.id === table.player.id));
    assert.ok(!excluded.data.some((user) => user.id !== table.player.id && user.id === 1));

    const longer = await again.post('/api/user/self-exclusion', { period: 'permanent' });
    assert.deepEqual(status(longer), [201, { data: { until: null, permanent: true } }]);
  });

  test('a provider bet is refused for a self-excluded player whose game session is still open (PLAYER_DISABLED)', async () => {
    const t = ctx();
    for (const driver of [demoDriver, hubDriver]) {
      const table = await regulatedSeat(t, driver, { loss_daily: 1000, session_minutes: 600 });
      // An exclusion written behind the app's back (another instance), the game session left open.
      await t.db.execute(sqlExclude(table.player.id));
      const bet = await send(t, driver, table.provider, betAt(table, 100n));
      assert.equal(bet.answer?.status, driver.word('PLAYER_DISABLED'), bet.res.text);
      assert.equal(await balanceOf(t.db, table.player.id), 10_000n);
    }
  });
});

describe('REGULATION=br: the session time', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('a session ends session_minutes after sign-in (401), and the game sessions opened from it stop taking bets', async () => {
    const t = ctx();
    const table = await regulatedSeat(t, demoDriver, { loss_daily: 1000, session_minutes: 5 });
    const client = t.client();
    await client.csrf();
    assert.equal((await client.post('/api/login', { email: table.player.email, password: table.player.password })).status, 200);
    const row = await one<{ ends_at: string | Date; signed_in_at: string | Date }>(
      t.db,
      sql`select ends_at, signed_in_at from sessions where user_id = ${table.player.id} and ends_at is not null order by created_at desc limit 1`,
    );
    assert.equal(new Date(row!.signed_in_at).getTime(), clock.now().getTime(), 'signed in on the app clock');
    assert.equal(new Date(row!.ends_at).getTime(), clock.now().getTime() + 5 * 60_000, 'five minutes after sign-in');

    // A money launch from that session carries its end into the game session.
    const admin = (await t.withRole('super-admin')).client;
    const code = `rg-${process.pid}-session`;
    const game = await adminGame(admin, (await adminProvider(admin, { code })).id, { slug: code, rtp: 96 });
    assert.equal((await client.get(`/api/provider-games/${game.id}/launch`)).status, 200);
    const launched = await one<{ left_ms: number; signed_in_at: string | Date }>(
      t.db,
      sql`select extract(epoch from ends_at - created_at) * 1000 as left_ms, signed_in_at
        from game_sessions where user_id = ${table.player.id} order by id desc limit 1`,
    );
    assert.equal(Number(launched!.left_ms), 5 * 60_000, 'the time left, on the database clock');
    assert.equal(new Date(launched!.signed_in_at).getTime(), new Date(row!.signed_in_at).getTime());

    // The game session's end passes (written behind the app's back): its bets are refused. The session's end passes: 401.
    await t.db.execute(sql`update game_sessions set ends_at = now() - interval '1 second' where user_id = ${table.player.id}`);
    clock.advance(5 * 60_000);
    assert.equal((await client.get('/api/user')).status, 401);
    clock.set('2026-11-27T10:00:00.000Z');
    const bet = await send(t, demoDriver, table.provider, betAt(table, 100n));
    assert.equal(bet.answer?.status, demoDriver.word('TOKEN_EXPIRED'), bet.res.text);
    assert.equal(await balanceOf(t.db, table.player.id), 10_000n);
  });
});

describe('REGULATION=none: limits are not enforced', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('a player without limits tops up and bets', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const game = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    assert.equal((await drawBet(player.client, game.code, 1)).status, 201);
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 })).status, 201);
  });
});

function sqlExclude(userId: number) {
  return sql`insert into self_exclusions (user_id, until, permanent) values (${userId}, now() + interval '1 day', false)`;
}
