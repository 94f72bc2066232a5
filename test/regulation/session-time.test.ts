import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp, type Client, type SignedIn, type TestApp } from '../helpers/app.ts';
import { ManualClock } from '../draws/helpers.ts';
import { createGame, demoDriver, hubDriver, send, type TestProvider, type WalletDriver } from '../games/helpers.ts';
import { HubLikeAdapter } from '../games/hub-adapter.ts';
import { nextId } from '../games/kit.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, setLimits, status } from './support.ts';

const START = '2026-11-27T10:00:00.000Z';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SIGNED_OUT = [401, { message: 'Unauthenticated.' }];
const REDIS_URL = 'redis://127.0.0.1:6379/7';

/**
 * docs/api.md section 14: a signed-in session ends `session_minutes` after its sign-in, whenever
 * that limit came into force, and the game sessions launched from it end with it. Time is the
 * app's clock, moved by hand; the session cache is kept long so that it could hide an end.
 */
const stores: { name: string; env: Record<string, string> }[] = [
  { name: 'sessions table', env: {} },
  { name: 'Redis', env: { REDIS_URL } },
];

const signedIn = async (client: Client) => status(await client.get('/api/user'))[0];

async function signInAgain(t: TestApp, player: SignedIn): Promise<Client> {
  const client = t.client();
  await client.csrf();
  assert.equal((await client.post('/api/login', { email: player.email, password: player.password })).status, 200);
  return client;
}

/** A registered player (signed in by registering) whose identity an operator approved, funded with 100.00. */
async function verified(t: TestApp): Promise<SignedIn> {
  const admin = (await t.withRole('super-admin')).client;
  const player = await t.player();
  assert.equal((await player.client.put('/api/user/identity', identityBody())).status, 200);
  assert.equal((await admin.post(`/api/admin/users/${player.id}/identity/approve`)).status, 200);
  await fund(t, player.id, 10_000n);
  return player;
}

interface Opened {
  provider: TestProvider;
  game: { id: number; code: string };
  /** The launch token, redeemed for `session`. */
  session: string;
}

/** A launch from the player's own session (the launch route), its token redeemed by the provider. */
async function launchFrom(t: TestApp, client: Client, driver: WalletDriver, provider?: TestProvider): Promise<Opened & { token: string }> {
  const at = provider ?? (await driver.createProvider(t, {}));
  const game = await createGame(t, at.id);
  const res = await client.get(`/api/provider-games/${game.id}/launch`);
  assert.equal(res.status, 200, res.text);
  const token = (res.json as { data: { token: string } }).data.token;
  return { provider: at, game, token, session: token };
}

async function redeem(t: TestApp, driver: WalletDriver, launched: Opened & { token: string }): Promise<Opened> {
  const opened = await send(t, driver, launched.provider, { action: 'balance', token: launched.token });
  assert.equal(opened.answer?.status, driver.word('OK'), opened.res.text);
  return { ...launched, session: opened.answer.session! };
}

function bet(t: TestApp, driver: WalletDriver, table: Opened, amount: bigint) {
  const call = {
    action: 'bet' as const,
    token: table.session,
    transactionId: nextId('bet'),
    roundId: nextId('round'),
    game: table.game.code,
    amount,
  };
  return send(t, driver, table.provider, call);
}

for (const store of stores) {
  describe(`REGULATION=br: the session time, sessions in the ${store.name}`, () => {
    const clock = new ManualClock(START);
    const ctx = useApp({ REGULATION: 'br', SESSION_CACHE_S: '3600', ...store.env }, { clock, gameAdapters: [new HubLikeAdapter()] });

    test('a player who registers and sets session_minutes 1 is signed out a minute after signing in, however active', async () => {
      const t = ctx();
      clock.set(START);
      const player = await t.player();
      await setLimits(player.client, { loss_daily: 100, session_minutes: 1 });
      clock.advance(30_000);
      assert.equal(await signedIn(player.client), 200);
      clock.advance(MINUTE - 30_000 - 1);
      assert.equal(await signedIn(player.client), 200, 'a millisecond before its end');
      clock.advance(1);
      assert.deepEqual(status(await player.client.get('/api/user')), SIGNED_OUT);
      assert.deepEqual(status(await player.client.get('/api/user/limits')), SIGNED_OUT, 'it stays ended');
    });

    test('a lower session_minutes shortens the session in progress at once, counted from its sign-in', async () => {
      const t = ctx();
      clock.set(START);
      const player = await t.player();
      await setLimits(player.client, { loss_daily: 100, session_minutes: 60 });
      const other = await signInAgain(t, player);
      clock.advance(10 * MINUTE);
      // The other device signed in at the same instant: both sessions now end 30 minutes after it.
      await setLimits(player.client, { session_minutes: 30 });
      clock.advance(20 * MINUTE - 1);
      assert.equal(await signedIn(player.client), 200);
      assert.equal(await signedIn(other), 200);
      clock.advance(1);
      assert.deepEqual(status(await player.client.get('/api/user')), SIGNED_OUT);
      assert.deepEqual(status(await other.get('/api/user')), SIGNED_OUT);

      // Lowered below the time already spent: the next request is signed out.
      const late = await signInAgain(t, player);
      clock.advance(10 * MINUTE);
      await setLimits(late, { session_minutes: 5 });
      assert.deepEqual(status(await late.get('/api/user')), SIGNED_OUT);
    });

    test('a raise waits 24 hours: the session in progress ends at its time; one the raise reaches in progress lasts the raised time', async () => {
      const t = ctx();
      clock.set(START);
      const player = await t.player();
      await setLimits(player.client, { loss_daily: 100, session_minutes: 5 });
      clock.advance(MINUTE);
      const raised = await setLimits(player.client, { session_minutes: 60 });
      const inForceAt = new Date(clock.now().getTime() + 24 * HOUR);
      assert.deepEqual(raised.pending, [{ field: 'session_minutes', value: 60, effective_at: inForceAt.toISOString() }]);
      clock.advance(4 * MINUTE - 1);
      assert.equal(await signedIn(player.client), 200);
      clock.advance(1);
      assert.deepEqual(status(await player.client.get('/api/user')), SIGNED_OUT);

      // Signed in two minutes before the raise comes into force: from then on 60 minutes apply.
      clock.set(new Date(inForceAt.getTime() - 2 * MINUTE));
      const client = await signInAgain(t, player);
      clock.advance(5 * MINUTE);
      assert.equal(await signedIn(client), 200, 'past the old 5 minutes');
      clock.advance(55 * MINUTE - 1);
      assert.equal(await signedIn(client), 200);
      clock.advance(1);
      assert.deepEqual(status(await client.get('/api/user')), SIGNED_OUT);
    });

    for (const driver of [demoDriver, hubDriver]) {
      test(`the game sessions launched from it end with it (${driver.adapter}): bets and launch tokens are the protocol's expired session`, async () => {
        const t = ctx();
        clock.set(START);
        const player = await verified(t);
        await setLimits(player.client, { loss_daily: 1000, session_minutes: 1 });
        const table = await redeem(t, driver, await launchFrom(t, player.client, driver));
        assert.equal((await bet(t, driver, table, 100n)).answer?.status, driver.word('OK'));
        const unredeemed = await launchFrom(t, player.client, driver, table.provider);
        clock.advance(MINUTE);
        assert.deepEqual(status(await player.client.get('/api/user')), SIGNED_OUT);
        const refused = await bet(t, driver, table, 100n);
        assert.equal(refused.answer?.status, driver.word('TOKEN_EXPIRED'), refused.res.text);
        const late = await send(t, driver, table.provider, { action: 'balance', token: unredeemed.token });
        assert.equal(late.answer?.status, driver.word('TOKEN_EXPIRED'), late.res.text);
        assert.equal(await balanceOf(t.db, player.id), 9_900n);
      });
    }

    test('a lower session_minutes at once ends the game sessions of a session already past it, and only those', async () => {
      const t = ctx();
      clock.set(START);
      const player = await verified(t);
      await setLimits(player.client, { loss_daily: 1000, session_minutes: 60 });
      const first = await redeem(t, demoDriver, await launchFrom(t, player.client, demoDriver));
      clock.advance(2 * MINUTE);
      const other = await signInAgain(t, player);
      const second = await redeem(t, demoDriver, await launchFrom(t, other, demoDriver, first.provider));
      clock.advance(MINUTE);
      // Three minutes after the first sign-in, one after the other's: two minutes end the first only.
      await setLimits(other, { session_minutes: 2 });
      const refused = await bet(t, demoDriver, first, 100n);
      assert.equal(refused.answer?.status, demoDriver.word('TOKEN_EXPIRED'), refused.res.text);
      assert.equal((await bet(t, demoDriver, second, 100n)).answer?.status, demoDriver.word('OK'));
      assert.deepEqual(status(await player.client.get('/api/user')), SIGNED_OUT);
      assert.equal(await signedIn(other), 200);
      assert.equal(await balanceOf(t.db, player.id), 9_900n);
    });
  });
}
