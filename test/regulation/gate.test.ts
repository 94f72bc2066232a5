import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { useApp, type Client, type Response, type SignedIn, type TestApp } from '../helpers/app.ts';
import { insertGame, ManualClock } from '../draws/helpers.ts';
import { createGame as adminGame, createProvider as adminProvider } from '../games/support.ts';
import { demoDriver, hubDriver, send, type WalletDriver } from '../games/helpers.ts';
import { betAt, seat } from '../games/kit.ts';
import { HubLikeAdapter } from '../games/hub-adapter.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, NOT_VERIFIED, setLimits, status } from './support.ts';

let providers = 0;

type MoneyRoute = [name: string, call: (client: Client) => Promise<Response>, success: number];

/** The four routes that move money or start play; the withdrawal goes to the player's own CPF key and name. */
async function moneyRoutes(t: TestApp, clock: ManualClock, identity: Record<string, unknown>): Promise<MoneyRoute[]> {
  const admin = (await t.withRole('super-admin')).client;
  // Codes of their own: test/games/helpers.ts numbers its providers and games `prov-<pid>-<n>` too.
  const code = `gate-${process.pid}-${++providers}`;
  const game = await adminGame(admin, (await adminProvider(admin, { code })).id, { slug: code, rtp: 96 });
  const draw = await insertGame(t.db, { type: 'dice3' });
  await t.app.drawScheduler.tick(clock.now());
  const withdrawal = { payee_name: identity.full_name, account_type: 'CPF', payee_account: identity.cpf, amount: 20 };
  return [
    ['top-up', (client) => client.post('/api/topups', { payment_method_id: 1, amount: 10 }), 201],
    ['withdrawal', (client) => client.post('/api/withdrawals', withdrawal), 201],
    ['launch', (client) => client.get(`/api/provider-games/${game.id}/launch`), 200],
    ['draw bet', (client) => client.post(`/api/games/${draw.code}/bets`, { selection: 'big', amount: 1 }), 201],
  ];
}

async function records(t: TestApp, userId: number): Promise<number> {
  const row = await one<{ n: string }>(
    t.db,
    sql`select (select count(*) from topups where user_id = ${userId}) + (select count(*) from withdrawals where user_id = ${userId})
      + (select count(*) from game_sessions where user_id = ${userId}) + (select count(*) from draw_bets where user_id = ${userId}) as n`,
  );
  return Number(row!.n);
}

async function fundedPlayer(t: TestApp): Promise<SignedIn> {
  const player = await t.player();
  await fund(t, player.id, 10_000n);
  return player;
}

describe('REGULATION=br: money and play wait for a verified identity', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('top-ups, withdrawals, launches and draw bets answer 403 while unverified, pending or rejected, then go through', async () => {
    const t = ctx();
    const identity = identityBody();
    const routes = await moneyRoutes(t, clock, identity);
    const admin = (await t.withRole('super-admin')).client;
    const player = await fundedPlayer(t);
    const refusedEverywhere = async (when: string) => {
      for (const [name, call] of routes) assert.deepEqual(status(await call(player.client)), [403, NOT_VERIFIED], `${name} (${when})`);
    };
    await refusedEverywhere('unverified');
    // Before the body is looked at: an empty top-up is still the 403.
    assert.deepEqual(status(await player.client.post('/api/topups', {})), [403, NOT_VERIFIED]);
    assert.equal((await player.client.put('/api/user/identity', identity)).status, 200);
    await refusedEverywhere('pending');
    await admin.post(`/api/admin/users/${player.id}/identity/reject`, { reason: 'Unreadable.' });
    await refusedEverywhere('rejected');
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
    assert.equal(await records(t, player.id), 0, 'no top-up, withdrawal, game session or bet was made');

    assert.equal((await player.client.put('/api/user/identity', identity)).status, 200);
    assert.equal((await admin.post(`/api/admin/users/${player.id}/identity/approve`)).status, 200);
    await setLimits(player.client);
    for (const [name, call, success] of routes) {
      const res = await call(player.client);
      assert.equal(res.status, success, `${name}: ${res.text}`);
    }
    assert.equal(await records(t, player.id), 4);
  });

  for (const driver of [demoDriver, hubDriver] satisfies WalletDriver[]) {
    test(`a provider's bet callback (${driver.adapter}) answers "player disabled" until verified; nothing moves`, async () => {
      const t = ctx();
      const admin = (await t.withRole('super-admin')).client;
      const table = await seat(t, driver);
      const refused = await send(t, driver, table.provider, betAt(table, 100n));
      assert.equal(refused.res.status, 200, refused.res.text);
      assert.equal(refused.answer?.status, driver.word('PLAYER_DISABLED'));
      assert.equal(await balanceOf(t.db, table.player.id), 10_000n);

      assert.equal((await table.player.client.put('/api/user/identity', identityBody())).status, 200);
      assert.equal((await send(t, driver, table.provider, betAt(table, 100n))).answer?.status, driver.word('PLAYER_DISABLED'));
      assert.equal((await admin.post(`/api/admin/users/${table.player.id}/identity/approve`)).status, 200);
      await setLimits(table.player.client);
      const accepted = await send(t, driver, table.provider, betAt(table, 100n));
      assert.deepEqual([accepted.answer?.status, accepted.answer?.balance], [driver.word('OK'), 9_900n]);
      assert.equal(await balanceOf(t.db, table.player.id), 9_900n);
    });
  }
});

describe('REGULATION=none: nothing waits for an identity', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('an unverified player tops up, withdraws, launches, bets on draws and at a provider', async () => {
    const t = ctx();
    const identity = identityBody();
    const routes = await moneyRoutes(t, clock, identity);
    const player = await fundedPlayer(t);
    for (const [name, call, success] of routes) {
      const res = await call(player.client);
      assert.equal(res.status, success, `${name}: ${res.text}`);
    }
    const table = await seat(t, demoDriver);
    assert.equal((await send(t, demoDriver, table.provider, betAt(table, 100n))).answer?.status, 'OK');
  });
});
