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
import { identityBody, newCpf, NOT_VERIFIED, setLimits, status, verifiedPlayer } from './support.ts';

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

const UNSET = { message: 'Set your loss and time limits before you deposit or play.' };
const LISTED = { message: 'Your CPF is on the national self-exclusion list.' };
const EMAIL_NOT_VERIFIED = { message: 'Your email address is not verified.' };

type Player = SignedIn & { cpf?: string; fullName?: string };

/** A money route asked in a state of its own that refuses whoever asks; `playGated`: limits and exclusions stop it too. */
interface RefusingRoute {
  name: string;
  call: (player: Player) => Promise<Response>;
  /** What a player no gate stops is answered: the route's own refusal. */
  refusal: [status: number, message: RegExp];
  playGated: boolean;
}

/**
 * Each money-in or wager route, and the withdrawal, in a state that refuses on its own: a
 * disabled payment method, a disabled provider game, a draw game between two draws (none
 * open), a disabled one, one in maintenance, and a withdrawal beyond the balance.
 */
async function refusingRoutes(t: TestApp): Promise<RefusingRoute[]> {
  const admin = (await t.withRole('super-admin')).client;
  const code = `gate-${process.pid}-${++providers}`;
  const method = await admin.post('/api/admin/payment-methods', {
    name: 'Off',
    code,
    gateway: 'sandbox',
    min_amount: 1,
    max_amount: 100,
    status: 0,
  });
  assert.equal(method.status, 201, method.text);
  const methodId = (method.json as { data: { id: number } }).data.id;
  const disabledGame = await adminGame(admin, (await adminProvider(admin, { code })).id, { slug: code, status: 0 });
  // No scheduler tick after these: the first has no draw open.
  const between = await insertGame(t.db, { type: 'dice3' });
  const disabled = await insertGame(t.db, { type: 'dice3', status: 0 });
  const maintenance = await insertGame(t.db, { type: 'dice3', status: 2 });
  const bet = (game: string) => (player: Player) => player.client.post(`/api/games/${game}/bets`, { selection: 'big', amount: 1 });
  return [
    {
      name: 'top-up on a disabled payment method',
      call: (player) => player.client.post('/api/topups', { payment_method_id: methodId, amount: 10 }),
      refusal: [422, /payment method id is invalid/],
      playGated: true,
    },
    {
      name: 'launch of a disabled game',
      call: (player) => player.client.get(`/api/provider-games/${disabledGame.id}/launch`),
      refusal: [404, /./],
      playGated: true,
    },
    { name: 'draw bet between two draws', call: bet(between.code), refusal: [422, /No draw is open for bets right now/], playGated: true },
    { name: 'draw bet on a disabled game', call: bet(disabled.code), refusal: [422, /has been disabled/], playGated: true },
    { name: 'draw bet on a game in maintenance', call: bet(maintenance.code), refusal: [422, /under maintenance/], playGated: true },
    {
      name: 'withdrawal beyond the balance',
      call: (player) =>
        player.client.post('/api/withdrawals', {
          payee_name: player.fullName ?? 'Maria da Silva',
          account_type: 'CPF',
          payee_account: player.cpf ?? newCpf(),
          amount: 20,
        }),
      refusal: [422, /./],
      playGated: false,
    },
  ];
}

/** Every route answers `gate` where it applies, and its own refusal elsewhere; nothing was written. */
async function assertGatedFirst(t: TestApp, routes: RefusingRoute[], player: Player, gate: unknown, who: string): Promise<void> {
  for (const route of routes) {
    const res = await route.call(player);
    if (route.playGated || gate === NOT_VERIFIED || gate === EMAIL_NOT_VERIFIED) {
      assert.deepEqual(status(res), [403, gate], `${route.name} (${who}): ${res.text}`);
    } else {
      // Withdrawals stay open to a self-excluded or listed player, or one without limits.
      assert.equal(res.status, route.refusal[0], `${route.name} (${who}): ${res.text}`);
    }
  }
  assert.equal(await records(t, player.id), 0, `${who}: no top-up, withdrawal, game session or bet was made`);
}

/** A player whose identity an operator approved, without limits. */
async function verifiedWithoutLimits(t: TestApp, admin: Client): Promise<Player> {
  const player = await t.player();
  const body = identityBody();
  assert.equal((await player.client.put('/api/user/identity', body)).status, 200);
  assert.equal((await admin.post(`/api/admin/users/${player.id}/identity/approve`)).status, 200);
  return { ...player, cpf: String(body.cpf), fullName: String(body.full_name) };
}

describe("REGULATION=br: the player's gates come before the state of the game, the draw or the payment method", () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('each state refuses a player no gate stops, with its own answer', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    const player = await verifiedPlayer(t, (await t.withRole('super-admin')).client);
    for (const route of routes) {
      const res = await route.call(player);
      assert.equal(res.status, route.refusal[0], `${route.name}: ${res.text}`);
      assert.match(String((res.json as { message?: unknown }).message), route.refusal[1], route.name);
    }
  });

  test('a player without limits is told to set them (403), not that no draw is open or the game is off', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    const player = await verifiedWithoutLimits(t, (await t.withRole('super-admin')).client);
    await assertGatedFirst(t, routes, player, UNSET, 'no limits');
  });

  test('a self-excluded player is told so (403) before anything about the game', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    const player = await verifiedPlayer(t, (await t.withRole('super-admin')).client);
    const until = new Date(clock.now().getTime() + 7 * 24 * 3600_000);
    await t.db.execute(
      sql`insert into self_exclusions (user_id, until, permanent) values (${player.id}, ${until.toISOString()}::timestamptz, false)`,
    );
    await assertGatedFirst(t, routes, player, { message: `Your account is self-excluded until ${until.toISOString()}.` }, 'self-excluded');
  });

  test('a listed player is told so (403) before anything about the game', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    const player = await verifiedPlayer(t, (await t.withRole('super-admin')).client);
    await t.db.execute(sql`insert into national_exclusions (cpf) values (${player.cpf})`);
    await assertGatedFirst(t, routes, player, LISTED, 'listed');
  });

  test('an unverified player is told to verify (403) on every route, the withdrawal too', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    await assertGatedFirst(t, routes, await t.player(), NOT_VERIFIED, 'unverified');
  });

  test('a demo launch is not gated: a player without limits gets the disabled game’s 404', async () => {
    const t = ctx();
    const admin = (await t.withRole('super-admin')).client;
    const code = `gate-${process.pid}-${++providers}`;
    const game = await adminGame(admin, (await adminProvider(admin, { code })).id, { slug: code, status: 0 });
    const player = await verifiedWithoutLimits(t, admin);
    assert.equal((await player.client.get(`/api/provider-games/${game.id}/launch?demo=1`)).status, 404);
    assert.deepEqual(status(await player.client.get(`/api/provider-games/${game.id}/launch?demo=0`)), [403, UNSET]);
  });
});

describe('REGULATION=br, EMAIL_VERIFICATION=on: the e-mail comes before the state of the game too', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ REGULATION: 'br', EMAIL_VERIFICATION: 'on' }, { clock, gameAdapters: [new HubLikeAdapter()] });

  test('a player whose e-mail is unverified gets its 403 on every route', async () => {
    const t = ctx();
    const routes = await refusingRoutes(t);
    await assertGatedFirst(t, routes, await t.player(), EMAIL_NOT_VERIFIED, 'e-mail unverified');
  });
});
