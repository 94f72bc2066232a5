import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { one } from '../../src/platform/db/client.ts';
import { useApp, type Client, type Response, type SignedIn, type TestApp } from '../helpers/app.ts';
import { closedPort } from '../helpers/smtp.ts';
import { insertGame, ManualClock } from '../draws/helpers.ts';
import { createGame, createProvider } from '../games/support.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { fund, withdrawalBody } from '../withdrawals/helpers.ts';
import { assertEmptyString, assertNoContent, UNAUTHENTICATED, verificationLink } from './support.ts';

const NOT_VERIFIED = { message: 'Your email address is not verified.' };

type MoneyRoute = [name: string, call: (client: Client) => Promise<Response>, success: number];

/** A provider game to launch and an open draw to bet on; the four routes that move money or start play. */
async function moneyRoutes(t: TestApp, clock: ManualClock): Promise<MoneyRoute[]> {
  const admin = (await t.withRole('super-admin')).client;
  const game = await createGame(admin, (await createProvider(admin)).id);
  const draw = await insertGame(t.db, { type: 'dice3' });
  await t.app.drawScheduler.tick(clock.now());
  return [
    ['top-up', (client) => client.post('/api/topups', { payment_method_id: 1, amount: 10 }), 201],
    ['withdrawal', (client) => client.post('/api/withdrawals', withdrawalBody(20)), 201],
    ['launch', (client) => client.get(`/api/provider-games/${game.id}/launch`), 200],
    ['draw bet', (client) => client.post(`/api/games/${draw.code}/bets`, { selection: 'big', amount: 1 }), 201],
  ];
}

async function fundedPlayer(t: TestApp): Promise<SignedIn> {
  const player = await t.player();
  await fund(t, player.id, 10_000n);
  return player;
}

async function assertAllowed(routes: MoneyRoute[], client: Client): Promise<void> {
  for (const [name, call, success] of routes) {
    const res = await call(client);
    assert.equal(res.status, success, `${name}: ${res.text}`);
  }
}

async function records(t: TestApp, userId: number): Promise<number> {
  const row = await one<{ n: string }>(
    t.db,
    sql`select (select count(*) from topups where user_id = ${userId}) + (select count(*) from withdrawals where user_id = ${userId})
      + (select count(*) from game_sessions where user_id = ${userId}) + (select count(*) from draw_bets where user_id = ${userId}) as n`,
  );
  return Number(row!.n);
}

describe('EMAIL_VERIFICATION=on', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({ EMAIL_VERIFICATION: 'on' }, { clock });

  test('registration sends the verification e-mail without being asked', async () => {
    const player = await ctx().player();
    const link = await verificationLink(ctx(), player.email);
    assert.ok(link.startsWith(`${ctx().config.appUrl}/api/email/verify/${player.id}/`), link);
  });

  test('top-ups, withdrawals, launches and draw bets answer 403 until the link is followed, then go through', async () => {
    const t = ctx();
    const routes = await moneyRoutes(t, clock);
    const player = await fundedPlayer(t);
    for (const [name, call] of routes) {
      const res = await call(player.client);
      assert.equal(res.status, 403, `${name}: ${res.text}`);
      assert.deepEqual(res.json, NOT_VERIFIED, name);
    }
    // Before the body is looked at (403 comes before 422), after sign-in (a guest is still 401).
    const empty = await player.client.post('/api/topups', {});
    assert.deepEqual([empty.status, empty.json], [403, NOT_VERIFIED]);
    const guest = ctx().client();
    await guest.csrf();
    const [, topup] = routes[0]!;
    assert.deepEqual(((res) => [res.status, res.json])(await topup(guest)), [401, UNAUTHENTICATED]);
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
    assert.equal(await records(t, player.id), 0, 'no top-up, withdrawal, game session or bet was made');

    const link = await verificationLink(t, player.email);
    assertNoContent(await player.client.get(link.slice(t.config.appUrl.length)));
    await assertAllowed(routes, player.client);
    assert.equal(await records(t, player.id), 4);

    // A new address is unverified again: money waits for its own link.
    assertEmptyString(await player.client.put('/api/user/profile-information', { name: 'Moved', email: `moved-${player.email}` }));
    const moved = await topup(player.client);
    assert.deepEqual([moved.status, moved.json], [403, NOT_VERIFIED]);
  });
});

describe('EMAIL_VERIFICATION=off (the default)', () => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('nothing is sent at registration and nothing is gated', async () => {
    const t = ctx();
    const routes = await moneyRoutes(t, clock);
    const player = await fundedPlayer(t);
    await assertAllowed(routes, player.client);
    // The one mail the player gets is the one they ask for.
    assertEmptyString(await player.client.post('/api/email/verification-notification'), 202);
    await verificationLink(t, player.email);
    const to = (mail: (typeof t.inbox.messages)[number]) => [mail.to].flat().map((address) => address?.text);
    assert.deepEqual(
      t.inbox.messages.filter((mail) => to(mail).includes(player.email)).map((mail) => mail.subject),
      ['Verify Email Address'],
    );
  });
});

const mailDown = await closedPort();

describe('EMAIL_VERIFICATION=on with the mail server down', () => {
  const lines: { level: number; msg: string; userId?: number }[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
  });
  const ctx = useApp({ EMAIL_VERIFICATION: 'on', MAIL_URL: `smtp://127.0.0.1:${mailDown}`, LOG_LEVEL: 'warn' }, { logStream });

  test('registration still succeeds and signs in; the unsent mail is a warning, and asking again is a 500', async () => {
    const player = await ctx().player();
    const logged = () => lines.find((line) => line.userId === player.id && line.level === 40);
    for (let waited = 0; logged() === undefined && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(logged()?.msg, 'the verification e-mail of a new account was not sent');
    const res = await player.client.post('/api/email/verification-notification');
    assert.deepEqual([res.status, res.json], [500, { message: 'Server Error.' }]);
  });
});
