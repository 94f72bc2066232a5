import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { applyLedgerOperation } from '../../src/modules/wallet/ledger.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, NO_GIFTS, NO_REFERRAL, paid, putSettings, referredPlayer, webhook } from '../wallet/helpers.ts';
import { dataOf, fund, withdrawalBody } from './helpers.ts';
import { createGame, createProvider, demoDriver, launch, send } from '../games/helpers.ts';
import { betOk, insertGame, ManualClock, openDraw } from '../draws/helpers.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';

const OFF = { min_amount_for_player: 0, min_amount_for_partner: 0, fee_rate: 0, total_bet: 0, referred_users_count: 0, total_topped_up: 0 };

async function withdrawCount(t: TestApp, userId: number): Promise<number> {
  const [row] = await rows<{ n: number }>(t.db, sql`select count(*)::int as n from withdrawals where user_id = ${userId}`);
  return row!.n;
}

/** A refusal on `amount` that moved nothing: same balance, same ledger, no withdrawal. */
async function refused(t: TestApp, player: SignedIn, amount: number | string, messages: string[]): Promise<void> {
  const balance = await balanceOf(t.db, player.id);
  const lines = (await ledgerOf(t.db, player.id)).length;
  const withdrawals = await withdrawCount(t, player.id);
  const res = await player.client.post('/api/withdrawals', withdrawalBody(amount));
  assert.equal(res.status, 422, res.text);
  assert.deepEqual((res.json as { errors: Record<string, string[]> }).errors, { amount: messages });
  assert.equal(await balanceOf(t.db, player.id), balance);
  assert.equal((await ledgerOf(t.db, player.id)).length, lines);
  assert.equal(await withdrawCount(t, player.id), withdrawals);
}

async function accepted(player: SignedIn, amount: number | string) {
  const res = await player.client.post('/api/withdrawals', withdrawalBody(amount));
  assert.equal(res.status, 201, res.text);
  return dataOf(res);
}

async function bet(t: TestApp, userId: number, cents: bigint, key: string): Promise<void> {
  await applyLedgerOperation(t.db, { userId, currency: 'BRL', type: 'bet', amount: -cents, idempotencyKey: `limits-bet:${userId}:${key}` });
}

describe('withdrawal limits (settings `withdraw`, 0 = off)', () => {
  const ctx = useApp();
  let admin: SignedIn;

  async function settings(values: Partial<typeof OFF>): Promise<void> {
    admin ??= await ctx().withRole('super-admin');
    await putSettings(admin.client, 'withdraw', { ...OFF, ...values });
  }

  test('a player’s minimum refuses below it and passes at exactly it', async () => {
    const t = ctx();
    await settings({ min_amount_for_player: 50, min_amount_for_partner: 500 });
    const player = await t.player();
    await fund(t, player.id, 100_000n);
    await refused(t, player, '49.99', ['The amount must be at least 50.00.']);
    assert.equal((await accepted(player, 50)).amount, 50);
  });

  test('a partner is held to the partner minimum instead, whatever the player minimum says', async () => {
    const t = ctx();
    await settings({ min_amount_for_player: 50, min_amount_for_partner: 200 });
    const partner = await t.player();
    await fund(t, partner.id, 100_000n);
    const made = await admin.client.put(`/api/admin/users/${partner.id}`, { is_partner: true });
    assert.equal(made.status, 200, made.text);
    await refused(t, partner, 199.99, ['The amount must be at least 200.00.']);
    await accepted(partner, 200);
    await settings({ min_amount_for_player: 50, min_amount_for_partner: 0 });
    await accepted(partner, 10);
  });

  test('the bet turnover must reach total_bet; it counts bet lines only', async () => {
    const t = ctx();
    await settings({ total_bet: 200 });
    const player = await t.player();
    await fund(t, player.id, 100_000n);
    await refused(t, player, 10, ['You need a total bet turnover of 200.00 before withdrawing; you have 0.00.']);
    await bet(t, player.id, 12_000n, 'a');
    // A win, a refund or an adjustment is not turnover.
    await applyLedgerOperation(t.db, {
      userId: player.id,
      currency: 'BRL',
      type: 'win',
      amount: 50_000n,
      idempotencyKey: `limits-win:${player.id}`,
    });
    await refused(t, player, 10, ['You need a total bet turnover of 200.00 before withdrawing; you have 120.00.']);
    await bet(t, player.id, 8_000n, 'b');
    await accepted(player, 10);
  });

  test('the referred users must reach referred_users_count', async () => {
    const t = ctx();
    await settings({ referred_users_count: 2 });
    await putSettings(admin.client, 'referral', NO_REFERRAL);
    const player = await t.player();
    await fund(t, player.id, 100_000n);
    await refused(t, player, 10, ['You need 2 referred users before withdrawing; you have 0 referred users.']);
    await referredPlayer(t, player.id);
    await refused(t, player, 10, ['You need 2 referred users before withdrawing; you have 1 referred user.']);
    await referredPlayer(t, player.id);
    await accepted(player, 10);
  });

  test('the total topped up must reach total_topped_up, counting paid top-ups only', async () => {
    const t = ctx();
    await settings({ total_topped_up: 100 });
    await putSettings(admin.client, 'topup', NO_GIFTS);
    const player = await t.player();
    await createTopup(player.client, 500); // pending: does not count
    await webhook(t, paid(await createTopup(player.client, 60)));
    await refused(t, player, 10, ['You need to have topped up a total of 100.00 before withdrawing; you have topped up 60.00.']);
    await webhook(t, paid(await createTopup(player.client, 40)));
    await accepted(player, 10);
    assert.equal(await balanceOf(t.db, player.id), 9_000n);
  });

  test('every unmet limit is reported at once, each with where the user stands', async () => {
    const t = ctx();
    await settings({ min_amount_for_player: 20, total_bet: 1, referred_users_count: 1, total_topped_up: 1 });
    const player = await t.player();
    await fund(t, player.id, 100_000n);
    await refused(t, player, 10, [
      'The amount must be at least 20.00.',
      'You need a total bet turnover of 1.00 before withdrawing; you have 0.00.',
      'You need 1 referred user before withdrawing; you have 0 referred users.',
      'You need to have topped up a total of 1.00 before withdrawing; you have topped up 0.00.',
    ]);
  });

  test('more than the balance is refused on amount with the balance, and the balance passes exactly', async () => {
    const t = ctx();
    await settings({});
    const player = await t.player();
    await refused(t, player, 1, ['The amount must not be greater than your balance of 0.00.']);
    await fund(t, player.id, 2_550n);
    await refused(t, player, '25.51', ['The amount must not be greater than your balance of 25.50.']);
    await accepted(player, '25.50');
    assert.equal(await balanceOf(t.db, player.id), 0n);
  });

  for (const [rate, amount, fee, net] of [
    [2.5, '10.01', 0.25, 9.76],
    [1.5, '10.10', 0.15, 9.95],
    [12.5, '0.04', 0.01, 0.03],
    [10, '0.05', 0.01, 0.04],
    [0, '33.33', 0, 33.33],
  ] as const) {
    test(`a fee of ${rate} % on ${amount} is ${fee} (half-up to the cent), the whole amount is held, and the fee is no statement line`, async () => {
      const t = ctx();
      await settings({ fee_rate: rate });
      const player = await t.player();
      await fund(t, player.id, 10_000n);
      const withdrawal = await accepted(player, amount);
      assert.deepEqual([withdrawal.amount, withdrawal.fee, withdrawal.net_amount], [Number(amount), fee, net]);
      assert.equal(await balanceOf(t.db, player.id), 10_000n - BigInt(Math.round(Number(amount) * 100)));
      assert.deepEqual(
        (await ledgerOf(t.db, player.id)).map((line) => line.type),
        ['adjustment', 'withdrawal'],
      );
    });
  }

  test('a fee that would leave nothing to pay out is refused', async () => {
    const t = ctx();
    await settings({ fee_rate: 100 });
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    await refused(t, player, 1, ['The amount must be greater than its fee of 1.00.']);
  });

  test('a settings change applies to the next request and the earlier withdrawal keeps its fee', async () => {
    const t = ctx();
    await settings({ fee_rate: 1 });
    const player = await t.player();
    await fund(t, player.id, 100_000n);
    const before = await accepted(player, 100);
    await settings({ fee_rate: 3 });
    const after = await accepted(player, 100);
    assert.deepEqual([before.fee, after.fee], [1, 3]);
    const shown = await player.client.get('/api/withdrawals');
    const fees = (shown.json as { data: { id: number; fee: number }[] }).data.map((item) => [item.id, item.fee]);
    assert.deepEqual(fees, [
      [after.id, 3],
      [before.id, 1],
    ]);
  });

  test('a malformed request is a 422 on its field and changes nothing', async () => {
    const t = ctx();
    await settings({});
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    for (const [overrides, field, message] of [
      [{ payee_name: '' }, 'payee_name', 'The payee name field is required.'],
      [{ account_type: 'IBAN' }, 'account_type', 'The selected account type is invalid.'],
      [{ payee_account: '12345678900' }, 'payee_account', 'The payee account is not a valid CPF: the check digits do not match.'],
      [{ amount: 0 }, 'amount', undefined],
      [{ amount: -5 }, 'amount', undefined],
      [{ amount: '1.234' }, 'amount', undefined],
      [{ amount: 'ten' }, 'amount', undefined],
    ] as const) {
      const res = await player.client.post('/api/withdrawals', withdrawalBody(10, overrides));
      assert.equal(res.status, 422, `${JSON.stringify(overrides)}: ${res.text}`);
      const errors = (res.json as { errors: Record<string, string[]> }).errors;
      assert.ok(errors[field] !== undefined, `${JSON.stringify(overrides)}: ${res.text}`);
      if (message !== undefined) assert.equal(errors[field][0], message);
    }
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
    assert.equal(await withdrawCount(t, player.id), 0);
  });

  test('each key type is stored in its canonical form (a CPF key is shown masked)', async () => {
    const t = ctx();
    await settings({});
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    for (const [type, sent, stored] of [
      ['CPF', '123.456.789-09', '123.***.***-09'],
      ['CNPJ', '12.abc.345/01de-35', '12ABC34501DE35'],
      ['EMAIL', 'Maria@Example.com', 'maria@example.com'],
      ['PHONE', '(61) 91234-5678', '+5561912345678'],
      ['EVP', '123E4567-E12B-12D1-A456-426655440000', '123e4567-e12b-12d1-a456-426655440000'],
    ] as const) {
      const res = await player.client.post('/api/withdrawals', withdrawalBody(1, { account_type: type, payee_account: sent }));
      assert.equal(res.status, 201, res.text);
      assert.deepEqual([dataOf(res).account_type, dataOf(res).payee_account], [type, stored]);
    }
  });
});

describe('a refunded bet and the bet turnover limit (total_bet)', () => {
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  const ctx = useApp({}, { clock });
  let admin: SignedIn;

  async function totalBet(amount: number): Promise<void> {
    admin ??= await ctx().withRole('super-admin');
    await putSettings(admin.client, 'withdraw', { ...OFF, total_bet: amount });
  }

  async function turnoverOf(t: TestApp, userId: number): Promise<bigint> {
    const [row] = await rows<{ bet_turnover: string }>(t.db, sql`select bet_turnover from balances where user_id = ${userId}`);
    return BigInt(row!.bet_turnover);
  }

  test('a provider bet of 10.00 that the provider refunds no longer counts: the turnover is back to 0.00 and a withdrawal needs new bets', async () => {
    const t = ctx();
    await totalBet(10);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const provider = await createProvider(t);
    const game = await createGame(t, provider.id);
    const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const session = (await send(t, demoDriver, provider, { action: 'balance', token: launched.token })).answer!.session!;
    const bet = { action: 'bet', token: session, roundId: `r-${player.id}`, game: game.code, amount: 1_000n } as const;

    assert.equal((await send(t, demoDriver, provider, { ...bet, transactionId: `b1-${player.id}` })).answer?.status, 'OK');
    assert.equal(await turnoverOf(t, player.id), 1_000n);
    const refund = { action: 'refund', transactionId: `rf-${player.id}`, betTransactionId: `b1-${player.id}` } as const;
    assert.equal((await send(t, demoDriver, provider, refund)).answer?.status, 'OK');
    assert.equal(await turnoverOf(t, player.id), 0n);
    // Replayed, or named by another refund id, the refund takes nothing more off.
    assert.equal((await send(t, demoDriver, provider, refund)).answer?.status, 'OK');
    assert.equal((await send(t, demoDriver, provider, { ...refund, transactionId: `rf2-${player.id}` })).answer?.status, 'OK');
    assert.equal(await turnoverOf(t, player.id), 0n);
    await refused(t, player, 10, ['You need a total bet turnover of 10.00 before withdrawing; you have 0.00.']);

    const next = { ...bet, roundId: `r2-${player.id}`, transactionId: `b2-${player.id}` };
    assert.equal((await send(t, demoDriver, provider, next)).answer?.status, 'OK');
    await accepted(player, 10);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('a draw bet of 10.00 refunded by a cancelled draw no longer counts toward the turnover', async () => {
    const t = ctx();
    await totalBet(10);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const dice = await insertGame(t.db, { type: 'dice3' });
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, dice.code);
    await betOk(player.client, dice.code, 'big', 10);
    assert.equal(await turnoverOf(t, player.id), 1_000n);
    const cancelled = await admin.client.post(`/api/admin/draws/${draw.id}/cancel`, { reason: 'Table closed' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
    assert.equal(await turnoverOf(t, player.id), 0n);
    await refused(t, player, 10, ['You need a total bet turnover of 10.00 before withdrawing; you have 0.00.']);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});
