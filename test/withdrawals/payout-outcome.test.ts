import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, test } from 'node:test';
import type { PayoutEvent, PayoutGateway, PayoutRequest } from '../../src/modules/payments/gateways/payout.ts';
import { SandboxGateway } from '../../src/modules/payments/gateways/sandbox.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf, SECRET } from '../wallet/helpers.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal } from './helpers.ts';

/**
 * A payout gateway whose request fails the way real ones do: an error answer, or no answer
 * before the client gives up. Its notifications are signed like the sandbox's.
 */
class UnreliableGateway implements PayoutGateway {
  readonly code = 'flaky';
  readonly requests: PayoutRequest[] = [];
  mode: 'error' | 'timeout' = 'error';
  readonly #signer = new SandboxGateway({ secret: SECRET, pixKey: 'x', merchantName: 'X', merchantCity: 'Y' });

  async requestPayout(request: PayoutRequest): Promise<{ payoutId: string }> {
    this.requests.push(request);
    if (this.mode === 'timeout') {
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw Object.assign(new Error('socket hang up'), { code: 'ETIMEDOUT' });
    }
    throw new Error('502 Bad Gateway');
  }

  verifyPayoutWebhook(rawBody: string, headers: IncomingHttpHeaders, now: Date): PayoutEvent {
    return this.#signer.verifyPayoutWebhook(rawBody, headers, now);
  }
}

describe('a payout whose outcome is unknown', () => {
  const ctx = useApp();
  const gateway = new UnreliableGateway();

  for (const mode of ['error', 'timeout'] as const) {
    test(`after a gateway ${mode}, the withdrawal stays approved with its money held, and no refund is written`, async () => {
      const t = ctx();
      t.app.payoutGateways.register(gateway, true);
      gateway.mode = mode;
      const admin = await t.withRole('super-admin');
      const player = await t.player();
      await fund(t, player.id, 10_000n);
      const withdrawal = await requestWithdrawal(player.client, 40);
      const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([dataOf(res).status, dataOf(res).payout_gateway, dataOf(res).payout_id], [1, 'flaky', null]);
      assert.equal(gateway.requests.at(-1)!.reference, dataOf(res).reference);
      assert.equal(gateway.requests.at(-1)!.amountCents, 4_000n);
      assert.equal(gateway.requests.at(-1)!.key, '12345678909');
      assert.equal(await balanceOf(t.db, player.id), 6_000n);
      assert.deepEqual(
        (await ledgerOf(t.db, player.id)).map((line) => line.type),
        ['adjustment', 'withdrawal'],
      );
    });
  }

  test('the operator reconciles by hand: fail returns the money once, complete keeps it paid out', async () => {
    const t = ctx();
    t.app.payoutGateways.register(gateway, true);
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const failed = await requestWithdrawal(player.client, 30);
    const paid = await requestWithdrawal(player.client, 20);
    for (const id of [failed.id, paid.id]) await admin.client.post(`/api/admin/withdrawals/${id}/approve`);
    const fail = await admin.client.post(`/api/admin/withdrawals/${failed.id}/fail`, { reason: 'Unknown at the gateway' });
    const complete = await admin.client.post(`/api/admin/withdrawals/${paid.id}/complete`);
    assert.deepEqual([fail.status, complete.status], [200, 200]);
    assert.equal(await balanceOf(t.db, player.id), 8_000n);
  });

  test('a signed notification from that gateway settles it later, even with no payout id on record', async () => {
    const t = ctx();
    t.app.payoutGateways.register(gateway, true);
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 15);
    const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`));
    assert.equal((await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 15 })).status, 404, 'not the sandbox’s');
    const res = await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 15 }, { gateway: 'flaky' });
    assert.equal(res.status, 200, res.text);
    assert.equal(dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, 2);
  });
});
