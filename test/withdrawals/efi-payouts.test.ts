// Issue 21, item 7: withdrawals paid out through Efí's PIX send (docs/api.md section 13b), against
// the PSP simulator over real mutual TLS with Efí's homologation rules: 0.01–10.00 is made,
// 10.01–20.00 is not, above 20.00 is refused in the request. What a user can see is asserted: the
// withdrawal's status and record, the balance, the ledger; and what reached the PSP.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PayoutRefusedError, type PayoutRequest } from '../../src/modules/payments/gateways/payout.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { HOMOLOGATION_KEY } from '../pix/simulator/efi-send.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { closeAccount, efiAccount, PAYER_KEY, type EfiAccount } from './efi-helpers.ts';
import { dataOf, fund, requestWithdrawal, type Withdrawal } from './helpers.ts';

/** Reconciliation looks at payouts approved longer ago than PIX_PAYOUT_RECONCILE_AFTER_S (600 by default). */
const LATER = () => new Date(Date.now() + 601_000);

describe('payouts through Efí', () => {
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

  /** A funded player's withdrawal of `amount` to `key` (the homologation key by default), approved by the operator. */
  async function approved(
    t: TestApp,
    amount: number,
    key: { type: string; account: string } = { type: 'EMAIL', account: HOMOLOGATION_KEY },
  ) {
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const requested = await requestWithdrawal(player.client, amount, { account_type: key.type, payee_account: key.account });
    const res = await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`);
    assert.equal(res.status, 200, res.text);
    return { player, withdrawal: dataOf(res) };
  }

  const show = async (id: number): Promise<Withdrawal> => dataOf(await admin.client.get(`/api/admin/withdrawals/${id}`));
  const lines = async (t: TestApp, userId: number) => (await ledgerOf(t.db, userId)).map((line) => `${line.type} ${line.amount}`);
  const putsOf = (reference: string) =>
    account.sim.calls.filter((call) => call.method === 'PUT' && call.path === `/v3/gn/pix/${reference}`).map((call) => call.status);

  test('an approval sends the net amount to the payee’s key under the withdrawal’s reference; the money stays held until the PSP says', async () => {
    const t = ctx();
    const { player, withdrawal } = await approved(t, 5);
    assert.deepEqual(
      [withdrawal.status, withdrawal.payout_gateway, withdrawal.payout_method_id, withdrawal.payout_state],
      [1, 'efi', account.methodId, 'sent'],
    );
    const sent = account.efi.sends.get(withdrawal.reference!)!;
    assert.equal(withdrawal.payout_id, sent.endToEndId);
    assert.deepEqual(account.efi.requests.find((request) => request.idEnvio === withdrawal.reference)!.body, {
      valor: '5.00',
      pagador: { chave: PAYER_KEY, infoPagador: `Withdrawal #${withdrawal.id}` },
      favorecido: { chave: HOMOLOGATION_KEY },
    });
    assert.equal(await balanceOf(t.db, player.id), 9_500n);
    assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -500']);
  });

  test('a lost notification: reconciliation’s status query pays it, once, and only after PIX_PAYOUT_RECONCILE_AFTER_S', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    try {
      const { player, withdrawal } = await approved(t, 7.5);
      await account.efi.process(withdrawal.reference);
      assert.equal(account.efi.sends.get(withdrawal.reference!)!.status, 'REALIZADO');
      const early = await t.app.payoutReconciler.run(new Date());
      assert.equal((await show(withdrawal.id)).status, 1, 'approved a moment ago: not looked at yet');
      assert.equal(early?.paid, 0);
      const first = await t.app.payoutReconciler.run(LATER());
      const again = await t.app.payoutReconciler.run(LATER());
      assert.ok(first!.paid >= 1, JSON.stringify(first));
      assert.equal(again!.paid, 0);
      const paid = await show(withdrawal.id);
      assert.deepEqual([paid.status, paid.payout_state], [2, 'paid'], 'the payout state agrees with the status');
      assert.ok(paid.paid_at !== null);
      assert.equal(await balanceOf(t.db, player.id), 9_250n);
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -750']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('a payout the SPI could not make (10.01–20.00) fails with its refund, exactly once', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    try {
      const { player, withdrawal } = await approved(t, 15);
      await account.efi.process(withdrawal.reference);
      await t.app.payoutReconciler.run(LATER());
      await t.app.payoutReconciler.run(LATER());
      const failed = await show(withdrawal.id);
      assert.deepEqual([failed.status, failed.payout_state], [4, 'failed'], 'the payout state agrees with the status');
      assert.ok(failed.reason !== null && failed.reason !== '');
      assert.equal(await balanceOf(t.db, player.id), 10_000n);
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -1500', 'withdrawal_refund 1500']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('a payout the PSP refuses in the request (above 20.00) fails at once with its refund, the PSP’s words as the reason', async () => {
    const t = ctx();
    const { player, withdrawal } = await approved(t, 25);
    assert.deepEqual([withdrawal.status, withdrawal.payout_state, withdrawal.payout_id], [4, 'refused', null]);
    assert.equal(withdrawal.reason, 'The PSP refused the payout: pagamento_negado: Pagamento negado por análises.');
    assert.equal(withdrawal.payout_detail, withdrawal.reason);
    assert.equal(account.efi.sends.has(withdrawal.reference!), false);
    await t.app.payoutReconciler.run(LATER());
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
    assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -2500', 'withdrawal_refund 2500']);
  });

  test('an unknown outcome (the PSP made the send but its answer was lost) stays approved with the money held; the status query settles it, sent once', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    account.efi.loseNextAnswer = 'error';
    try {
      const { player, withdrawal } = await approved(t, 3);
      assert.deepEqual([withdrawal.status, withdrawal.payout_state, withdrawal.payout_id], [1, 'unknown', null]);
      assert.match(String(withdrawal.payout_detail), /503|Serviço indisponível/);
      assert.equal(await balanceOf(t.db, player.id), 9_700n);
      // Still processing at the PSP: found, and left approved.
      await t.app.payoutReconciler.run(LATER());
      const seen = await show(withdrawal.id);
      assert.deepEqual(
        [seen.status, seen.payout_state, seen.payout_id],
        [1, 'sent', account.efi.sends.get(withdrawal.reference!)!.endToEndId],
      );
      await account.efi.process(withdrawal.reference);
      await t.app.payoutReconciler.run(LATER());
      assert.equal((await show(withdrawal.id)).status, 2);
      assert.deepEqual(putsOf(withdrawal.reference!), [503], 'asked once: the PSP’s record answered the rest');
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -300']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('a PSP down when asked: the withdrawal stays approved (unknown); reconciliation finds no such send and sends it again, which pays once', async () => {
    const t = ctx();
    account.efi.dropNotifications = true;
    try {
      const player = await t.player();
      await fund(t, player.id, 10_000n);
      const requested = await requestWithdrawal(player.client, 4.5, { account_type: 'EMAIL', payee_account: HOMOLOGATION_KEY });
      // Every call fails for a while: the token's (if one is needed) and the send's.
      account.sim.failNext(2, 503);
      const withdrawal = dataOf(await admin.client.post(`/api/admin/withdrawals/${requested.id}/approve`));
      account.sim.failNext(0);
      assert.deepEqual([withdrawal.status, withdrawal.payout_state], [1, 'unknown']);
      assert.equal(account.efi.sends.has(withdrawal.reference!), false);
      await t.app.payoutReconciler.run(LATER());
      assert.equal(account.efi.sends.get(withdrawal.reference!)?.status, 'EM_PROCESSAMENTO', 'sent again under the same idEnvio');
      assert.equal((await show(withdrawal.id)).payout_state, 'sent');
      await account.efi.process(withdrawal.reference);
      await t.app.payoutReconciler.run(LATER());
      await t.app.payoutReconciler.run(LATER());
      assert.equal((await show(withdrawal.id)).status, 2);
      assert.equal(putsOf(withdrawal.reference!).filter((status) => status === 201).length, 1);
      assert.deepEqual(await lines(t, player.id), ['adjustment 10000', 'withdrawal -450']);
    } finally {
      account.efi.dropNotifications = false;
    }
  });

  test('asking twice for one payout is the same payout: Efí’s 409 for a used idEnvio is read from its record', async () => {
    const gateway = ctx().app.payoutGateways.get('efi')!;
    const request: PayoutRequest = {
      reference: `WD${randomUUID().replaceAll('-', '')}`,
      paymentMethodId: account.methodId,
      amountCents: 200n,
      currency: 'BRL',
      payeeName: 'Maria Silva',
      keyType: 'EMAIL',
      key: HOMOLOGATION_KEY,
      description: 'Withdrawal #0',
    };
    const first = await gateway.requestPayout(request);
    const second = await gateway.requestPayout(request);
    assert.equal(second.payoutId, first.payoutId);
    assert.deepEqual(putsOf(request.reference), [201, 409]);
    assert.equal([...account.efi.sends.values()].filter((send) => send.idEnvio === request.reference).length, 1);
  });

  test('a CPF key carries the payee’s CPF, and a key held by someone else’s CPF is refused by the PSP', async () => {
    const t = ctx();
    account.efi.homologation = false;
    try {
      const { withdrawal } = await approved(t, 6, { type: 'CPF', account: '123.456.789-09' });
      const body = account.efi.requests.find((request) => request.idEnvio === withdrawal.reference)!.body as { favorecido: unknown };
      assert.deepEqual(body.favorecido, { chave: '12345678909', cpf: '12345678909' });
      assert.equal(withdrawal.payout_state, 'sent');

      // Under REGULATION=br every payout carries the player's CPF: a key another person holds is refused.
      account.efi.holders.set('maria@example.com', { cpf: '11144477735', name: 'Outra Pessoa' });
      const gateway = t.app.payoutGateways.get('efi')!;
      await assert.rejects(
        gateway.requestPayout({
          reference: `WD${randomUUID().replaceAll('-', '')}`,
          paymentMethodId: account.methodId,
          amountCents: 300n,
          currency: 'BRL',
          payeeName: 'Maria Silva',
          keyType: 'EMAIL',
          key: 'maria@example.com',
          payeeCpf: '12345678909',
          description: 'Withdrawal #0',
        }),
        (error: unknown) => error instanceof PayoutRefusedError && /chave_nao_pertence_ao_documento/.test(error.message),
      );
    } finally {
      account.efi.homologation = true;
    }
  });

  test('the ledger verifies after every payout above', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
