import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { applyLedgerOperation, type LedgerType } from '../../src/modules/wallet/ledger.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { page } from '../admin/support.ts';
import { balanceOf, createTopup, paid, putSettings, webhook } from '../wallet/helpers.ts';
import { dataOf, payoutWebhook, requestWithdrawal, type Withdrawal } from './helpers.ts';

const OFF = { min_amount_for_player: 0, min_amount_for_partner: 0, fee_rate: 0, total_bet: 0, referred_users_count: 0, total_topped_up: 0 };
const IDENTITY_CPF = '52998224725';

interface Reviewed extends Withdrawal {
  player: { name: string; email: string; identity_status: string; created_at: string; account_age_days: number };
  balance: number;
  since_last_withdrawal: { previous_withdrawal_id: number | null; since: string | null; deposits: number; turnover: number };
}

let lines = 0;
/** A line of `type` on the player's balance, as a game (a bet, a win, a refund of a stake) writes it. */
async function line(t: TestApp, userId: number, type: LedgerType, cents: bigint): Promise<void> {
  lines += 1;
  await applyLedgerOperation(t.db, { userId, currency: 'BRL', type, amount: cents, idempotencyKey: `review-list:${userId}:${lines}` });
}

/** A top-up paid through the sandbox gateway's notification: one `topup` line (and a gift line, if the settings give one). */
async function deposit(t: TestApp, player: SignedIn, amount: number): Promise<void> {
  const res = await webhook(t, paid(await createTopup(player.client, amount)));
  assert.equal(res.status, 200, res.text);
}

function units(cents: bigint): number {
  return Number(cents) / 100;
}

describe('what a reviewer sees on the admin withdrawal list', () => {
  const ctx = useApp();

  test('each row shows the player, the balance now, and the deposits and turnover since the previous withdrawal that took money out', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'withdraw', OFF);
    const player = await t.player({ name: 'Joana Reviewed' });
    const signedUp = new Date(Date.now() - (10 * 24 + 1) * 3_600_000);
    await t.db.execute(sql`update users set created_at = ${signedUp.toISOString()} where id = ${player.id}`);

    // Before the first withdrawal: 60.00 in, 20.00 staked.
    await deposit(t, player, 60);
    await line(t, player.id, 'bet', -2_000n);
    const first = await requestWithdrawal(player.client, 10);
    const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${first.id}/approve`));
    assert.equal((await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 10 })).status, 200);

    // A rejected withdrawal gave its money back: it does not start a new window.
    const rejected = await requestWithdrawal(player.client, 5);
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${rejected.id}/reject`, { reason: 'Not now' })).status, 200);

    // Between the first withdrawal and the second: 40.00 in (a pending top-up is not), stakes of
    // 12.00 and 8.00 with 3.00 of them refunded, a win that is no turnover.
    await deposit(t, player, 40);
    await createTopup(player.client, 500);
    await line(t, player.id, 'bet', -1_200n);
    await line(t, player.id, 'bet', -800n);
    await line(t, player.id, 'bet_refund', 300n);
    await line(t, player.id, 'win', 5_000n);
    const second = await requestWithdrawal(player.client, 15);

    // After the second: its window has ended; this counts for none of them.
    await deposit(t, player, 30);
    await line(t, player.id, 'bet', -700n);

    await t.db.execute(
      sql`insert into user_identities (user_id, cpf, full_name, birth_date, status, verifier)
        values (${player.id}, ${IDENTITY_CPF}, 'Joana Reviewed', '1990-01-01', 'pending', 'manual')`,
    );

    const res = await admin.client.get(`/api/admin/withdrawals?user_id=${player.id}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(!res.text.includes(IDENTITY_CPF), 'the CPF is never in a list');
    const listed = page<Reviewed>(res.json).data;
    assert.deepEqual(
      listed.map((w) => w.id),
      [second.id, rejected.id, first.id],
    );
    const balance = units(await balanceOf(t.db, player.id));
    const who = {
      name: 'Joana Reviewed',
      email: player.email,
      identity_status: 'pending',
      created_at: signedUp.toISOString(),
      account_age_days: 10,
    };
    const firstCreated = listed[2]!.created_at as string;
    const expected = new Map([
      [first.id, { previous_withdrawal_id: null, since: null, deposits: 60, turnover: 20 }],
      [rejected.id, { previous_withdrawal_id: first.id, since: firstCreated, deposits: 0, turnover: 0 }],
      [second.id, { previous_withdrawal_id: first.id, since: firstCreated, deposits: 40, turnover: 17 }],
    ]);
    for (const row of listed) {
      assert.deepEqual(row.player, who, `withdrawal ${row.id}`);
      assert.equal(row.balance, balance);
      assert.deepEqual(row.since_last_withdrawal, expected.get(row.id), `withdrawal ${row.id}`);
      // The fields the list had stay as they were.
      assert.equal(row.user_id, player.id);
      assert.equal(row.payee_account, '123.***.***-09');
    }

    // The record shown, and the one an action answers (the back office updates its row with it), are the list's.
    const shown = await admin.client.get(`/api/admin/withdrawals/${second.id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(dataOf(shown), listed[0]);
    const approvedSecond = dataOf(await admin.client.post(`/api/admin/withdrawals/${second.id}/approve`)) as Reviewed;
    assert.deepEqual(approvedSecond.since_last_withdrawal, expected.get(second.id));
    assert.deepEqual(approvedSecond.player, who);
  });

  test('a player without an identity reads unverified; a first withdrawal counts from the sign-up', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await putSettings(admin.client, 'withdraw', OFF);
    const player = await t.player();
    await deposit(t, player, 25);
    const withdrawal = await requestWithdrawal(player.client, 10);
    const shown = dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)) as Reviewed;
    assert.equal(shown.player.identity_status, 'unverified');
    assert.equal(shown.player.account_age_days, 0);
    assert.deepEqual(shown.since_last_withdrawal, { previous_withdrawal_id: null, since: null, deposits: 25, turnover: 0 });
    assert.equal(shown.balance, units(await balanceOf(t.db, player.id)));
  });
});
