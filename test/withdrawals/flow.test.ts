import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal, type Withdrawal } from './helpers.ts';

describe('a withdrawal from request to payout', () => {
  const ctx = useApp();

  test('the amount is held at once, approve sends the payout, a paid notification completes it', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);

    const withdrawal = await requestWithdrawal(player.client, 40, { payee_account: '111.444.777-35' });
    assert.equal(withdrawal.status, 0);
    assert.equal(withdrawal.amount, 40);
    assert.equal(withdrawal.fee, 0);
    assert.equal(withdrawal.net_amount, 40);
    assert.equal(withdrawal.payee_account, '111.***.***-35', 'a CPF key is a CPF: shown masked');
    assert.deepEqual([withdrawal.reviewed_by, withdrawal.reviewed_at, withdrawal.paid_at, withdrawal.reason], [null, null, null, null]);
    assert.equal(await balanceOf(t.db, player.id), 6_000n);
    const lines = await ledgerOf(t.db, player.id);
    assert.deepEqual(
      lines.map((line) => [line.type, line.amount, line.reference_type, line.reference_id]),
      [
        ['adjustment', 10_000n, null, null],
        ['withdrawal', -4_000n, 'withdrawal', withdrawal.id],
      ],
    );

    const listed = await player.client.get('/api/withdrawals');
    assert.equal(listed.status, 200);
    // The record the request answers is the record as every later read shows it.
    assert.deepEqual((listed.json as { data: Withdrawal[] }).data, [withdrawal]);

    const approved = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`);
    assert.equal(approved.status, 200, approved.text);
    assert.equal(dataOf(approved).status, 1);
    assert.equal(dataOf(approved).reviewed_by, admin.id);
    assert.match(String(dataOf(approved).payout_id), /^SBXP/);

    const notified = await payoutWebhook(t, { reference: dataOf(approved).reference, status: 'paid', amount: 40 });
    assert.equal(notified.status, 200, notified.text);
    assert.deepEqual(notified.json, { data: { withdrawal_id: withdrawal.id, status: 2, duplicate: false } });
    const replay = await payoutWebhook(t, { reference: dataOf(approved).reference, status: 'paid', amount: 40 });
    assert.deepEqual(replay.json, { data: { withdrawal_id: withdrawal.id, status: 2, duplicate: true } });

    const shown = await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`);
    assert.equal(dataOf(shown).status, 2);
    assert.ok(dataOf(shown).paid_at !== null);
    assert.equal(await balanceOf(t.db, player.id), 6_000n);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('a rejected withdrawal returns the whole amount with one withdrawal_refund line', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 5_000n);
    const withdrawal = await requestWithdrawal(player.client, '12.34');
    const rejected = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'Name does not match' });
    assert.equal(rejected.status, 200, rejected.text);
    assert.equal(dataOf(rejected).status, 3);
    assert.equal(dataOf(rejected).reason, 'Name does not match');
    assert.equal(await balanceOf(t.db, player.id), 5_000n);
    const again = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'again' });
    assert.equal(again.status, 409);
    assert.deepEqual(again.json, { message: 'A withdrawal that is rejected cannot be rejected.' });
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => [line.type, line.amount]),
      [
        ['adjustment', 5_000n],
        ['withdrawal', -1_234n],
        ['withdrawal_refund', 1_234n],
      ],
    );
  });
});
