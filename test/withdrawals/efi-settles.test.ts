// Issue 34, item 1: once a payout is at Efí (sent, its outcome unknown, or not yet recorded),
// only Efí's outcome settles the withdrawal. An operator's reject, fail or complete is a 409
// that changes nothing, and stays one when it races Efí's settlement: the money moves once in
// total, whichever arrives first. Against the PSP simulator (efi-helpers.ts), over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp, type Response, type SignedIn, type TestApp } from '../helpers/app.ts';
import { HOMOLOGATION_KEY } from '../pix/simulator/efi-send.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { closeAccount, efiAccount, type EfiAccount } from './efi-helpers.ts';
import { dataOf, fund, requestWithdrawal, type Withdrawal } from './helpers.ts';

const AT_PSP = 'The payout was sent to the PSP: only its outcome can settle this withdrawal.';
/** Reconciliation looks at payouts approved longer ago than PIX_PAYOUT_RECONCILE_AFTER_S (600 by default). */
const LATER = () => new Date(Date.now() + 601_000);

describe('only Efí’s outcome settles a payout Efí holds', () => {
  const ctx = useApp();
  let admin: SignedIn;
  let account: EfiAccount;

  before(async () => {
    admin = await ctx().withRole('super-admin');
    account = await efiAccount(ctx(), admin.client);
  });
  after(async () => {
    await closeAccount(account);
  });

  /** A player with 100.00 and a withdrawal of `amount` to the homologation key, approved: its payout is at Efí. */
  async function approved(t: TestApp, amount: number): Promise<{ player: SignedIn; withdrawal: Withdrawal }> {
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const requested = await requestWithdrawal(player.client, amount, { account_type: 'EMAIL', payee_account: HOMOLOGATION_KEY });
    const res = await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`);
    assert.equal(res.status, 200, res.text);
    return { player, withdrawal: dataOf(res) };
  }

  const show = async (id: number): Promise<Withdrawal> => dataOf(await admin.client.get(`/api/admin/withdrawals/${id}`));
  const lines = async (t: TestApp, userId: number) => (await ledgerOf(t.db, userId)).map((line) => `${line.type} ${line.amount}`);
  const byHand = (id: number): Promise<Response[]> =>
    Promise.all([
      admin.client.post(`/api/admin/withdrawals/${id}/reject`, { reason: 'changed my mind' }),
      admin.client.post(`/api/admin/withdrawals/${id}/fail`, { reason: 'looks failed' }),
      admin.client.post(`/api/admin/withdrawals/${id}/complete`),
    ]);

  /** Every manual settlement was refused with the reason, and the withdrawal is still approved with its money held. */
  async function refusedByHand(t: TestApp, player: SignedIn, withdrawal: Withdrawal): Promise<void> {
    for (const res of await byHand(withdrawal.id)) {
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.json, { message: AT_PSP });
    }
    assert.equal((await show(withdrawal.id)).status, 1);
    assert.equal(await balanceOf(t.db, player.id), 10_000n - BigInt(Math.round(withdrawal.amount * 100)));
  }

  test('a sent payout: reject, fail and complete by hand are 409 and change nothing; Efí’s REALIZADO then pays it, money out once', async () => {
    const t = ctx();
    const { player, withdrawal } = await approved(t, 5);
    assert.equal(withdrawal.payout_state, 'sent');
    await refusedByHand(t, player, withdrawal);
    await account.efi.process(withdrawal.reference);
    const settled = await show(withdrawal.id);
    assert.equal(settled.status, 2);
    assert.equal(await balanceOf(t.db, player.id), 9_500n);
    assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -500']);
  });

  test('a payout whose outcome is unknown is Efí’s too: 409 by hand; reconciliation settles it by Efí’s NAO_REALIZADO, refunded once', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    account.efi.loseNextAnswer = 'error';
    try {
      const { player, withdrawal } = await approved(t, 15);
      assert.equal(withdrawal.payout_state, 'unknown');
      await refusedByHand(t, player, withdrawal);
      await account.efi.process(withdrawal.reference);
      await t.app.payoutReconciler.run(LATER());
      assert.equal((await show(withdrawal.id)).status, 4);
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -1500', 'withdrawal_refund 1500']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('an approval whose send was never recorded (the process died first) is still Efí’s: 409 by hand; reconciliation sends it, paid once', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    try {
      const player = await t.player();
      await fund(t, player.id, 10_000n);
      const requested = await requestWithdrawal(player.client, 4, { account_type: 'EMAIL', payee_account: HOMOLOGATION_KEY });
      // The approval committed and the process died before asking Efí: what the database then holds.
      account.sim.failNext(2, 503);
      const approval = await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`);
      account.sim.failNext(0);
      await t.db.execute(sql`update withdrawals set payout_state = null, payout_detail = null where id = ${requested.id}`);
      const withdrawal = await show(dataOf(approval).id);
      assert.deepEqual([withdrawal.status, withdrawal.payout_state, withdrawal.payout_id], [1, null, null]);
      await refusedByHand(t, player, withdrawal);
      await t.app.payoutReconciler.run(LATER());
      await account.efi.process(withdrawal.reference);
      await t.app.payoutReconciler.run(LATER());
      assert.equal((await show(withdrawal.id)).status, 2);
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -400']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('a reject racing Efí’s settlement (made or not made): the reject is 409, and the money moves once in total', async () => {
    const t = ctx();
    // Efí's homologation: up to 10.00 is made (REALIZADO), 10.01–20.00 is not (NAO_REALIZADO).
    for (const amount of [5, 15, 6, 16, 7, 17]) {
      const { player, withdrawal } = await approved(t, amount);
      const cents = BigInt(amount * 100);
      const [reject] = await Promise.all([
        admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'race' }),
        // Efí decides, then notifies; the service confirms with the status query and settles.
        account.efi.process(withdrawal.reference),
      ]);
      assert.equal(reject.status, 409, reject.text);
      const paid = amount <= 10;
      const final = await show(withdrawal.id);
      assert.equal(final.status, paid ? 2 : 4, `${amount}: settled by Efí's outcome`);
      assert.deepEqual(
        await lines(t, player.id),
        paid ? ['adjustment 10000', `withdrawal -${cents}`] : ['adjustment 10000', `withdrawal -${cents}`, `withdrawal_refund ${cents}`],
      );
      assert.equal(await balanceOf(t.db, player.id), paid ? 10_000n - cents : 10_000n);
    }
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('the sandbox pays nothing and answers no status query: an operator still settles its payouts by hand', async () => {
    const t = ctx();
    const chosen = await admin.client.put('/api/admin/settings/payouts', { payment_method_id: null });
    assert.equal(chosen.status, 200, chosen.text);
    try {
      const player = await t.player();
      await fund(t, player.id, 10_000n);
      const requested = await requestWithdrawal(player.client, 5);
      const approval = dataOf(await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`));
      assert.deepEqual([approval.payout_gateway, approval.payout_state], ['sandbox', 'sent']);
      const res = await admin.client.post(`/api/admin/withdrawals/${requested.id}/reject`, { reason: 'no' });
      assert.equal(res.status, 200, res.text);
      assert.equal(await balanceOf(t.db, player.id), 10_000n);
    } finally {
      await admin.client.put('/api/admin/settings/payouts', { payment_method_id: account.methodId });
    }
  });
});
