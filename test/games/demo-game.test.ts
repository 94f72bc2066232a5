import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { providerTransactions } from '../../src/modules/games/seamless-wallet/tables.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp, type Response, type TestApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { createGame, createProvider, endSession, launch } from './helpers.ts';

interface Opened {
  status: string;
  demo: boolean;
  session: string | null;
  balance: number | null;
  currency: string | null;
}

interface Spun {
  status: string;
  reels: string[] | null;
  multiplier: number;
  win: number;
  balance: number | null;
}

async function post(t: TestApp, url: string, body: unknown): Promise<Response & { body: unknown }> {
  const res = await t.app.inject({ method: 'POST', url, payload: body as Record<string, unknown> });
  const json: unknown = JSON.parse(res.body);
  return { status: res.statusCode, headers: res.headers, text: res.body, json, cookies: [], body: json };
}

const cents = (units: number) => BigInt(Math.round(units * 100));

/** A player of the demo provider with a launch, as the catalogue's launch endpoint makes one. */
async function launched(t: TestApp, options: { demo?: boolean; funds?: bigint } = {}) {
  const provider = await createProvider(t, { adapter: 'demo' });
  const game = await createGame(t, provider.id);
  const player = await t.player();
  if ((options.funds ?? 0n) > 0n) await fund(t, player.id, options.funds!);
  const launch_ = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, demo: options.demo ?? false });
  return { provider, game, player, launch: launch_ };
}

const inlineHash = (html: string, tag: 'script' | 'style') => {
  const body = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)![1]!;
  return `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
};

describe('the built-in demo game', () => {
  const ctx = useApp({ CORS_ORIGINS: 'https://spa.example' });

  test('its page is self-contained HTML under a strict Content-Security-Policy that lets exactly its inline script and style run', async () => {
    const t = ctx();
    const { launch: l } = await launched(t);
    const res = await t.app.inject({ method: 'GET', url: `/games/demo/play?token=${l.token}` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const policy = String(res.headers['content-security-policy']);
    assert.match(policy, /^default-src 'none'; /);
    assert.ok(policy.includes(`script-src ${inlineHash(res.body, 'script')};`), policy);
    assert.ok(policy.includes(`style-src ${inlineHash(res.body, 'style')};`), policy);
    assert.match(policy, /connect-src 'self'/);
    assert.match(policy, /frame-ancestors 'self' https:\/\/spa\.example$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(res.body.includes(`data-token="${l.token}"`));
    assert.ok(!/(src|href)="https?:/.test(res.body), 'nothing is loaded from anywhere');
    assert.match(res.body, /Return to player 96\.00&nbsp;%/);
    // Loading the page redeems nothing: the page's script does, once.
    assert.equal(((await post(t, '/games/demo/open', { token: l.token })).body as Opened).status, 'OK');

    const bad = await t.app.inject({ method: 'GET', url: '/games/demo/play?token=%3Cscript%3E' });
    assert.equal(bad.statusCode, 422);
    assert.equal(typeof bad.json<{ message: string }>().message, 'string');
  });

  test('opening redeems the launch token through the wallet once; each spin is a signed bet and win whose lines the player finds', async () => {
    const t = ctx();
    const { provider, player, launch: l } = await launched(t, { funds: 100_000n });
    const opened = (await post(t, '/games/demo/open', { token: l.token })).body as Opened;
    assert.deepEqual(
      [opened.status, opened.demo, typeof opened.session, opened.balance, opened.currency],
      ['OK', false, 'string', 1000, 'BRL'],
    );
    const again = (await post(t, '/games/demo/open', { token: l.token })).body as Opened;
    assert.deepEqual([again.status, again.session], ['INVALID_TOKEN', null]);

    // Spin until a win shows (a third of the lines pay; 60 losses in a row would be a broken slot).
    let staked = 0n;
    let won = 0n;
    let spins = 0;
    let winning = 0;
    while (winning === 0 && spins < 60) {
      const spun = (await post(t, '/games/demo/spin', { session: opened.session, stake: 2.5 })).body as Spun;
      assert.equal(spun.status, 'OK');
      assert.equal(spun.reels!.length, 3);
      assert.equal(cents(spun.win), 250n * BigInt(spun.multiplier));
      spins += 1;
      staked += 250n;
      won += cents(spun.win);
      if (spun.win > 0) winning += 1;
      assert.equal(cents(spun.balance!), 100_000n - staked + won);
    }
    assert.equal(winning, 1);
    assert.equal(await balanceOf(t.db, player.id), 100_000n - staked + won);
    const lines = await ledgerOf(t.db, player.id);
    assert.equal(lines.filter((line) => line.type === 'bet' && line.amount === -250n).length, spins);
    assert.deepEqual(
      lines.filter((line) => line.type === 'win').map((line) => line.amount),
      [won],
    );

    // The player sees them in the statement and in the provider-bet list, every round settled.
    const statement = (await player.client.get('/api/transactions?per_page=100')).json as { data: { type: string }[] };
    assert.equal(statement.data.filter((line) => line.type === 'bet').length, spins);
    assert.equal(statement.data.filter((line) => line.type === 'win').length, 1);
    const bets = (await player.client.get('/api/provider-bets?per_page=100')).json as { data: { status: number; provider_id: number }[] };
    assert.equal(bets.data.length, spins);
    assert.deepEqual(new Set(bets.data.map((bet) => [bet.status, bet.provider_id].join())), new Set([`1,${provider.id}`]));
    // Each round is a bet and a closing win (0 for a loss) the wallet recorded with its signed body.
    const calls = await t.db.select().from(providerTransactions).where(eq(providerTransactions.providerId, provider.id));
    assert.equal(calls.filter((call) => call.kind === 'bet' && call.outcome === 'OK').length, spins);
    assert.equal(calls.filter((call) => call.kind === 'win' && call.outcome === 'OK').length, spins);
  });

  test('a stake above the balance is refused with the balance and no reels; a bad stake is 422; an unknown session 404', async () => {
    const t = ctx();
    const { player, launch: l } = await launched(t, { funds: 300n });
    const session = ((await post(t, '/games/demo/open', { token: l.token })).body as Opened).session;
    const refused = (await post(t, '/games/demo/spin', { session, stake: 5 })).body as Spun;
    assert.deepEqual([refused.status, refused.reels, refused.balance], ['INSUFFICIENT_FUNDS', null, 3]);
    assert.equal(await balanceOf(t.db, player.id), 300n);
    for (const stake of [0, -1, 1.005, 'lots', 100_000]) {
      const res = await post(t, '/games/demo/spin', { session, stake });
      assert.equal(res.status, 422, `stake ${stake}: ${res.text}`);
    }
    const unknown = await post(t, '/games/demo/spin', { session: 'a'.repeat(48), stake: 1 });
    assert.deepEqual([unknown.status, unknown.json], [404, { message: 'Not found.' }]);
    assert.equal((await post(t, '/games/demo/open', { token: 'b'.repeat(40) })).status, 404);
  });

  test('after the session ended a spin is TOKEN_EXPIRED and moves nothing', async () => {
    const t = ctx();
    const { player, launch: l } = await launched(t, { funds: 10_000n });
    const session = ((await post(t, '/games/demo/open', { token: l.token })).body as Opened).session;
    await endSession(t, l.id);
    const spun = (await post(t, '/games/demo/spin', { session, stake: 1 })).body as Spun;
    assert.deepEqual([spun.status, spun.balance], ['TOKEN_EXPIRED', 100]);
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
  });

  test('a demo launch plays with play credits and makes no wallet call: no line, no recorded call, the balance untouched', async () => {
    const t = ctx();
    const { provider, player, launch: l } = await launched(t, { demo: true, funds: 5_000n });
    const opened = (await post(t, '/games/demo/open', { token: l.token })).body as Opened;
    assert.deepEqual([opened.status, opened.demo, opened.balance], ['OK', true, 1000]);
    assert.equal(((await post(t, '/games/demo/open', { token: l.token })).body as Opened).status, 'INVALID_TOKEN');
    let credits = opened.balance!;
    for (let i = 0; i < 10; i++) {
      const spun = (await post(t, '/games/demo/spin', { session: opened.session, stake: 10, credits })).body as Spun;
      assert.equal(spun.status, 'OK');
      assert.equal(cents(spun.balance!), cents(credits) - 1_000n + cents(spun.win));
      credits = spun.balance!;
    }
    const broke = (await post(t, '/games/demo/spin', { session: opened.session, stake: 10, credits: 9.99 })).body as Spun;
    assert.deepEqual([broke.status, broke.balance], ['INSUFFICIENT_FUNDS', 9.99]);
    assert.equal(await balanceOf(t.db, player.id), 5_000n);
    assert.equal((await ledgerOf(t.db, player.id)).length, 1);
    assert.deepEqual(await t.db.select().from(providerTransactions).where(eq(providerTransactions.providerId, provider.id)), []);
  });

  test('ledger:verify is clean', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
