import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp, type TestApp } from '../helpers/app.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal } from '../withdrawals/helpers.ts';
import { createTopup, NO_REFERRAL, paid, putSettings, referredPlayer, webhook } from '../wallet/helpers.ts';
import { betOk, insertGame, ManualClock, openDraw } from '../draws/helpers.ts';
import { createGame, createProvider, demoDriver, launch, send } from '../games/helpers.ts';

const TOKEN = 'metrics-test-token-0123456789abcdef';

async function scrape(t: TestApp, authorization?: string) {
  return t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
}

/** The value of one sample of the exposition (0 when the series does not exist yet). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('GET /metrics when metrics are not enabled', () => {
  const ctx = useApp();

  test('answers 404, with or without a token', async () => {
    assert.equal((await scrape(ctx())).statusCode, 404);
    assert.equal((await scrape(ctx(), `Bearer ${TOKEN}`)).statusCode, 404);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const ctx = useApp({ METRICS_TOKEN: TOKEN });

  test('is not in the OpenAPI document, like the other probes', async () => {
    const res = await ctx().client().get('/docs/json');
    assert.equal(res.status, 200);
    const paths = (res.json as { paths: Record<string, unknown> }).paths;
    assert.ok('/api/user' in paths);
    assert.equal('/metrics' in paths, false);
  });

  test('answers 401 in the contract shape without the token, with a wrong one, or another scheme', async () => {
    for (const authorization of [
      undefined,
      '',
      'Bearer',
      `Bearer ${TOKEN.slice(0, -1)}x`,
      `Bearer ${TOKEN}x`,
      `bearer${TOKEN}`,
      `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
      TOKEN,
      `Bearer ${TOKEN} `.repeat(50),
    ]) {
      const res = await scrape(ctx(), authorization);
      assert.equal(res.statusCode, 401, String(authorization));
      assert.deepEqual(JSON.parse(res.body), { message: 'Unauthenticated.' });
    }
  });

  test('with the token: Prometheus text with the route pattern, never the raw path, as the label of a request just made', async () => {
    const t = ctx();
    const player = await t.player();
    assert.equal((await player.client.get('/api/user')).status, 200);
    const missing = await player.client.get('/api/games/no-such-game-7341');
    assert.equal(missing.status, 404);
    assert.equal((await t.client().get('/no/such/path-9917')).status, 404);

    const res = await scrape(t, `Bearer ${TOKEN}`);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    assert.ok(sample(text, 'croupier_http_request_duration_seconds_count{method="GET",route="/api/user",status="200"}') >= 1, text);
    assert.ok(sample(text, 'croupier_http_request_duration_seconds_count{method="GET",route="/api/games/:game",status="404"}') >= 1);
    assert.ok(sample(text, 'croupier_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}') >= 1);
    assert.match(text, /croupier_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/user",status="200"\}/);
    assert.equal(text.includes('no-such-game-7341'), false, 'a path parameter became a label');
    assert.equal(text.includes('path-9917'), false, 'an unknown path became a label');
    // The process's own metrics come along.
    assert.match(text, /^process_cpu_user_seconds_total /m);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    // PostgreSQL's pool is reported; the embedded database has none.
    assert.equal(/^croupier_db_pool_connections /m.test(text), t.database.database.kind === 'postgres');
    if (t.database.database.kind === 'postgres') assert.match(text, /^croupier_db_pool_waiting_requests 0$/m);
  });

  test('a paid sandbox top-up moves the ledger and payment counters by its lines, once, and a replay moves nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    const player = await t.player();
    const topup = await createTopup(player.client, 25.5);
    const read = async () => (await scrape(t, `Bearer ${TOKEN}`)).body;
    const before = await read();

    assert.equal((await webhook(t, paid(topup))).status, 200);
    const after = await read();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(moved('croupier_topups_paid_total{via="webhook"}'), 1);
    assert.equal(moved('croupier_ledger_lines_total{type="topup"}'), 1);
    assert.equal(moved('croupier_ledger_amount_cents_total{type="topup"}'), 2550);
    // The player's first paid top-up: a 10 % gift line of 2.55.
    assert.equal(moved('croupier_ledger_lines_total{type="topup_gift"}'), 1);
    assert.equal(moved('croupier_ledger_amount_cents_total{type="topup_gift"}'), 255);
    assert.equal(moved('croupier_ledger_lines_total{type="referral_bonus"}'), 0, 'the player has no referrer');

    const replay = await webhook(t, paid(topup));
    assert.equal(replay.status, 200);
    assert.equal(
      sample(await read(), 'croupier_ledger_lines_total{type="topup"}'),
      sample(after, 'croupier_ledger_lines_total{type="topup"}'),
    );
  });

  test("a referred player's paid top-up counts the referrer's reward line too", async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'referral', { bonus: 0, topped_up_bonus: 1, topped_up_bonus_rate: 0 });
    const referrer = await t.player();
    const player = await referredPlayer(t, referrer.id);
    const topup = await createTopup(player.client, 40);
    const read = async () => (await scrape(t, `Bearer ${TOKEN}`)).body;
    const before = await read();
    assert.equal((await webhook(t, paid(topup))).status, 200);
    const after = await read();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(moved('croupier_ledger_lines_total{type="referral_bonus"}'), 1);
    assert.equal(moved('croupier_ledger_amount_cents_total{type="referral_bonus"}'), 100);
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });

  test('an admin confirm counts once its transaction committed, and a refused one counts nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const topup = await createTopup(player.client, 12);
    const read = async () => (await scrape(t, `Bearer ${TOKEN}`)).body;
    const before = await read();
    assert.equal((await admin.client.post(`/api/admin/topups/${topup.id}/confirm`)).status, 200);
    assert.equal((await admin.client.post(`/api/admin/topups/${topup.id}/confirm`)).status, 409);
    const after = await read();
    assert.equal(sample(after, 'croupier_topups_paid_total{via="admin"}') - sample(before, 'croupier_topups_paid_total{via="admin"}'), 1);
    assert.equal(
      sample(after, 'croupier_ledger_amount_cents_total{type="topup"}') -
        sample(before, 'croupier_ledger_amount_cents_total{type="topup"}'),
      1200,
    );
  });

  test('withdrawals count by outcome with their hold and refund lines: requested, approved and paid, or rejected', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const read = async () => (await scrape(t, `Bearer ${TOKEN}`)).body;
    const before = await read();

    const paidOut = await requestWithdrawal(player.client, 30, { payee_account: '111.444.777-35' });
    const approved = await admin.client.post(`/api/admin/withdrawals/${paidOut.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    const notified = await payoutWebhook(t, { reference: dataOf(approved).reference, status: 'paid', amount: 30 });
    assert.equal(notified.status, 200, notified.text);
    const refused = await requestWithdrawal(player.client, 20, { payee_account: '111.444.777-35' });
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${refused.id}/reject`, { reason: 'No' })).status, 200);
    // Refused by the state machine: nothing moves.
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${refused.id}/reject`, { reason: 'No' })).status, 409);

    const after = await read();
    const moved = (series: string) => sample(after, series) - sample(before, series);
    assert.equal(moved('croupier_withdrawals_total{outcome="requested"}'), 2);
    assert.equal(moved('croupier_withdrawals_total{outcome="approved"}'), 1);
    assert.equal(moved('croupier_withdrawals_total{outcome="paid"}'), 1);
    assert.equal(moved('croupier_withdrawals_total{outcome="rejected"}'), 1);
    assert.equal(moved('croupier_ledger_lines_total{type="withdrawal"}'), 2);
    assert.equal(moved('croupier_ledger_amount_cents_total{type="withdrawal"}'), 5000);
    assert.equal(moved('croupier_ledger_lines_total{type="withdrawal_refund"}'), 1);
    assert.equal(moved('croupier_ledger_amount_cents_total{type="withdrawal_refund"}'), 2000);
  });
});

/** The counters' moves between two scrapes of `t`, around `work`. */
async function movedBy(t: TestApp, work: () => Promise<void>): Promise<(series: string) => number> {
  const read = async () => (await scrape(t, `Bearer ${TOKEN}`)).body;
  const before = await read();
  await work();
  const after = await read();
  return (series) => sample(after, series) - sample(before, series);
}

describe('ledger metrics count every line type written while serving', () => {
  const clock = new ManualClock('2026-11-26T12:00:00.000Z');
  const ctx = useApp({ METRICS_TOKEN: TOKEN }, { clock });
  const lines = (type: string) => `croupier_ledger_lines_total{type="${type}"}`;
  const cents = (type: string) => `croupier_ledger_amount_cents_total{type="${type}"}`;

  test("a provider's refund counts its bet_refund line once; another refund id for the same bet, a replay, or a refund of a bet never seen count nothing", async () => {
    const t = ctx();
    const provider = await createProvider(t);
    const game = await createGame(t, provider.id);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const session = (await send(t, demoDriver, provider, { action: 'balance', token: launched.token })).answer!.session!;
    const bet = { action: 'bet', token: session, transactionId: 'm-bet', roundId: 'm-round', game: game.code, amount: 1_250n } as const;
    assert.equal((await send(t, demoDriver, provider, bet)).answer?.status, 'OK');

    const refund = { action: 'refund', transactionId: 'm-refund', betTransactionId: 'm-bet' } as const;
    const moved = await movedBy(t, async () => {
      assert.equal((await send(t, demoDriver, provider, refund)).answer?.status, 'OK');
      assert.equal((await send(t, demoDriver, provider, refund)).answer?.status, 'OK');
      assert.equal((await send(t, demoDriver, provider, { ...refund, transactionId: 'm-refund-2' })).answer?.status, 'OK');
      const tombstone = { action: 'refund', transactionId: 'm-refund-3', betTransactionId: 'm-never-seen' } as const;
      assert.equal((await send(t, demoDriver, provider, tombstone)).answer?.status, 'OK');
    });
    assert.equal(moved(lines('bet_refund')), 1);
    assert.equal(moved(cents('bet_refund')), 1_250);
  });

  test('a cancelled draw counts one bet_refund line per refunded bet, with their stakes', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const players = [await t.player(), await t.player()];
    for (const player of players) await fund(t, player.id, 10_000n);
    const dice = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(admin.client, dice.code);
    await betOk(players[0]!.client, dice.code, 'big', 3);
    await betOk(players[1]!.client, dice.code, 'small', 4.5);
    await betOk(players[1]!.client, dice.code, 'odd', 1);
    const moved = await movedBy(t, async () => {
      const cancelled = await admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'Maintenance' });
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal((await admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'Again' })).status, 409);
    });
    assert.equal(moved(lines('bet_refund')), 3);
    assert.equal(moved(cents('bet_refund')), 850);
    // Cancelling a draw nobody bet on writes and counts nothing.
    const empty = await insertGame(t.db, { type: 'double' });
    await t.app.drawScheduler.tick(clock.now());
    const quiet = await openDraw(admin.client, empty.code);
    const none = await movedBy(t, async () => {
      assert.equal((await admin.client.post(`/api/admin/draws/${quiet.id}/cancel`, { reason: 'Closed' })).status, 200);
    });
    assert.equal(none(lines('bet_refund')), 0);
  });

  test("a referred sign-up counts the referrer's referral_bonus line once the registration committed; a sign-up without a referrer counts none", async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'referral', { bonus: 2.5, topped_up_bonus: 0, topped_up_bonus_rate: 0 });
    const referrer = await t.player();
    const moved = await movedBy(t, async () => {
      await referredPlayer(t, referrer.id);
      await t.player();
    });
    assert.equal(moved(lines('referral_bonus')), 1);
    assert.equal(moved(cents('referral_bonus')), 250);
    await putSettings(admin.client, 'referral', NO_REFERRAL);
  });
});

describe('GET /metrics with METRICS_ENABLED=on and no token', () => {
  const ctx = useApp({ METRICS_ENABLED: 'on' });

  test('answers without any Authorization header (for a private scrape network)', async () => {
    const res = await scrape(ctx());
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /# TYPE croupier_http_request_duration_seconds histogram/);
  });
});
