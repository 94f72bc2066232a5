import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal, type Withdrawal } from './helpers.ts';

/** The admin record's status and payout state (docs/withdrawals.md, "What the request came to"). */
async function stateOf(admin: SignedIn, id: number): Promise<[number, unknown]> {
  const shown = dataOf(await admin.client.get(`/api/admin/withdrawals/${id}`));
  return [shown.status, shown.payout_state];
}

describe('a withdrawal’s payout state agrees with its status', () => {
  const ctx = useApp();

  async function approvedThroughSandbox(admin: SignedIn, player: SignedIn): Promise<Withdrawal> {
    const requested = await requestWithdrawal(player.client, 10);
    const res = await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([dataOf(res).status, dataOf(res).payout_state], [1, 'sent']);
    return dataOf(res);
  }

  test('the sandbox’s paid notification leaves it paid (2) with payout_state paid; a replay changes nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await approvedThroughSandbox(admin, player);
    const notice = { reference: withdrawal.reference, status: 'paid', amount: 10 };
    assert.equal((await payoutWebhook(t, notice)).status, 200);
    assert.deepEqual(await stateOf(admin, withdrawal.id), [2, 'paid']);
    assert.deepEqual((await payoutWebhook(t, notice)).json, { data: { withdrawal_id: withdrawal.id, status: 2, duplicate: true } });
    assert.deepEqual(await stateOf(admin, withdrawal.id), [2, 'paid']);
  });

  test('the sandbox’s failed notification leaves it failed (4) with payout_state failed', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await approvedThroughSandbox(admin, player);
    const res = await payoutWebhook(t, { reference: withdrawal.reference, status: 'failed', amount: 10, reason: 'Closed account' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await stateOf(admin, withdrawal.id), [4, 'failed']);
  });

  test('settled by hand: complete reads paid, fail and a reject after approval read failed, a reject while pending was never asked', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const cases = [
      { action: 'complete', body: undefined, expected: [2, 'paid'] },
      { action: 'fail', body: { reason: 'Unknown at the gateway' }, expected: [4, 'failed'] },
      { action: 'reject', body: { reason: 'Payee name does not match' }, expected: [3, 'failed'] },
    ] as const;
    for (const { action, body, expected } of cases) {
      const withdrawal = await approvedThroughSandbox(admin, player);
      const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/${action}`, body);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([dataOf(res).status, dataOf(res).payout_state], expected, action);
      assert.deepEqual(await stateOf(admin, withdrawal.id), expected, action);
    }
    const pending = await requestWithdrawal(player.client, 10);
    assert.equal((await admin.client.post(`/api/admin/withdrawals/${pending.id}/reject`, { reason: 'No' })).status, 200);
    assert.deepEqual(await stateOf(admin, pending.id), [3, null]);
  });
});
