// Issue 21, items 3 to 6: top-ups through a PSP's API Pix, end to end against the simulator:
// the charge, notifications that are never proof, reconciliation, expiry and returns.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PixMethods } from '../../src/modules/payments/pix-api/methods.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, NO_GIFTS, NO_REFERRAL, putSettings, referredPlayer, type Topup } from '../wallet/helpers.ts';
import { dynamicBrCode } from './simulator/brcode.ts';
import { deliver, notify, PAYER, pixPaymentsOf, pixWorld, type PixWorld } from './helpers.ts';

const topupOf = async (client: SignedIn['client'], id: number): Promise<Topup> => {
  const res = await client.get('/api/topups?per_page=100');
  return (res.json as { data: Topup[] }).data.find((topup) => topup.id === id)!;
};

describe('top-ups through API Pix', () => {
  const ctx = useApp();
  let world: PixWorld;
  before(async () => {
    world = await pixWorld(ctx());
  });
  after(async () => {
    await world?.sim.stop();
  });

  test('a top-up creates the charge: the txid derived from the top-up, the amount, the key and the expiry; qr_code is pixCopiaECola', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, '25.50', world.methodId);
    assert.equal(topup.status, 0);
    assert.equal(topup.gateway, 'pix-api');
    assert.match(topup.gateway_payment_id!, /^[A-Za-z0-9]{26,35}$/);
    const charge = world.sim.charges.get(topup.gateway_payment_id!)!;
    assert.deepEqual(
      [charge.valor, charge.chave, charge.expiracao, charge.status],
      [2550n, '123e4567-e12b-12d1-a456-426655440000', 3600, 'ATIVA'],
    );
    assert.equal(topup.qr_code, dynamicBrCode(charge.location, 'CROUPIER TESTES', 'SAO PAULO'), 'the PSP’s pixCopiaECola, as it is');
    assert.match(topup.payment_url!, /\/pay\/[A-Za-z0-9]{24}$/);
  });

  test('top-up → charge → paid notification → one credit', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 40, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    const res = await notify(ctx(), world.sim, [paid.endToEndId]);
    assert.equal(res.status, 200, res.text);
    const now = await topupOf(player.client, topup.id);
    assert.equal(now.status, 1);
    assert.equal(await balanceOf(ctx().db, player.id), 4000n);
    assert.deepEqual(
      (await ledgerOf(ctx().db, player.id)).map((line) => [line.type, line.amount]),
      [['topup', 4000n]],
    );
    assert.deepEqual(
      (await pixPaymentsOf(ctx(), topup.id)).map((row) => [row.end_to_end_id, row.outcome]),
      [[paid.endToEndId, 'credited']],
    );
  });

  test('the notification is confirmed with the PSP before anything is credited', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 12, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    world.sim.calls.length = 0;
    await notify(ctx(), world.sim, [paid.endToEndId]);
    assert.ok(world.sim.calls.some((call) => call.method === 'GET' && call.path === `/v2/pix/${paid.endToEndId}` && call.status === 200));
    assert.equal((await topupOf(player.client, topup.id)).status, 1);
  });

  test('gifts and referral rewards are paid through the PIX path as through any other', async () => {
    const t = ctx();
    await putSettings(world.admin.client, 'topup', { gift_rate_first_time: 10, gift_rate: 5, options: [] });
    await putSettings(world.admin.client, 'referral', { bonus: 0, topped_up_bonus: 2, topped_up_bonus_rate: 1 });
    try {
      const referrer = await t.player();
      const referred = await referredPlayer(t, referrer.id);
      const topup = await createTopup(referred.client, 100, world.methodId);
      const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
      assert.equal((await notify(t, world.sim, [paid.endToEndId])).status, 200);
      assert.deepEqual(
        (await ledgerOf(t.db, referred.id)).map((line) => [line.type, line.amount]),
        [
          ['topup', 10_000n],
          ['topup_gift', 1000n],
        ],
      );
      assert.deepEqual(
        (await ledgerOf(t.db, referrer.id)).map((line) => [line.type, line.amount]),
        [['referral_bonus', 300n]],
      );
    } finally {
      await putSettings(world.admin.client, 'topup', NO_GIFTS);
      await putSettings(world.admin.client, 'referral', NO_REFERRAL);
    }
  });

  test('the same notification 20 times in parallel credits once', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 30, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    const answers = await Promise.all(Array.from({ length: 20 }, () => notify(ctx(), world.sim, [paid.endToEndId])));
    assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([200]));
    assert.equal(await balanceOf(ctx().db, player.id), 3000n);
    assert.equal((await ledgerOf(ctx().db, player.id)).length, 1);
    assert.equal((await pixPaymentsOf(ctx(), topup.id)).length, 1);
  });

  test('a forged notification for an unpaid charge credits nothing', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 50, world.methodId);
    const forged = {
      pix: [
        {
          endToEndId: 'E09089356202611281200FORGED00001',
          txid: topup.gateway_payment_id,
          valor: '50.00',
          horario: new Date().toISOString(),
        },
      ],
    };
    const res = await deliver(ctx(), world.sim, forged);
    assert.equal(res.status, 200, 'answered 200 whatever the items say');
    assert.equal((await topupOf(player.client, topup.id)).status, 0);
    assert.equal(await balanceOf(ctx().db, player.id), 0n);
    assert.deepEqual(await pixPaymentsOf(ctx(), topup.id), []);
  });

  test('a notification naming a real payment with another amount credits what the PSP says, not what it claims', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 20, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    const body = world.sim.notification([paid.endToEndId]);
    body.pix[0]!.valor = '9999.00';
    assert.equal((await deliver(ctx(), world.sim, body)).status, 200);
    assert.equal(await balanceOf(ctx().db, player.id), 2000n);
  });

  test('a notification naming a real payment but claiming another player’s charge credits the charge the PSP names', async () => {
    const payer = await ctx().player();
    const other = await ctx().player();
    const paidTopup = await createTopup(payer.client, 30, world.methodId);
    // Another amount: decided on the claimed charge, the payment would be returned as the wrong amount.
    const claimedTopup = await createTopup(other.client, 50, world.methodId);
    const paid = world.sim.pay(paidTopup.gateway_payment_id!, PAYER);
    const body = world.sim.notification([paid.endToEndId]);
    body.pix[0]!.txid = claimedTopup.gateway_payment_id!;
    assert.equal((await deliver(ctx(), world.sim, body)).status, 200);
    assert.equal((await topupOf(payer.client, paidTopup.id)).status, 1);
    assert.equal(await balanceOf(ctx().db, payer.id), 3000n);
    assert.equal((await topupOf(other.client, claimedTopup.id)).status, 0);
    assert.equal(await balanceOf(ctx().db, other.id), 0n);
  });

  test('a notification without the method’s token, or with another, is 401 and changes nothing', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 15, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    const body = world.sim.notification([paid.endToEndId]);
    const base = `http://localhost/api/webhooks/pix/${world.code}`;
    assert.equal((await deliver(ctx(), world.sim, body, `${base}/pix`)).status, 401);
    assert.equal((await deliver(ctx(), world.sim, body, `${base}?token=wrong-token-wrong-token&ignorar=/pix`)).status, 401);
    assert.equal((await topupOf(player.client, topup.id)).status, 0);
    // The registered URL, which ends in `&ignorar=`, with the `/pix` the PSP appends to it.
    assert.match(world.sim.notificationUrl(), /\?token=[^&]+&ignorar=\/pix$/);
    assert.equal((await deliver(ctx(), world.sim, body)).status, 200);
    // And `/pix` inserted into the path instead.
    assert.equal((await deliver(ctx(), world.sim, body, `${base}/pix?token=${world.webhookToken!}`)).status, 200);
    assert.equal((await topupOf(player.client, topup.id)).status, 1);
    assert.equal(await balanceOf(ctx().db, player.id), 1500n);
  });

  test('a notification for a code that is no API Pix method is a 404', async () => {
    assert.equal((await deliver(ctx(), world.sim, { pix: [] }, 'http://localhost/api/webhooks/pix/pix')).status, 404);
    assert.equal((await deliver(ctx(), world.sim, { pix: [] }, 'http://localhost/api/webhooks/pix/no-such-method')).status, 404);
  });

  test('items that name no payment, a txid that is not ours and anything else are answered 200 and ignored', async () => {
    const other = world.sim.transfer('123e4567-e12b-12d1-a456-426655440000', 700n, PAYER);
    const res = await deliver(ctx(), world.sim, {
      pix: [{ hello: 'world' }, 42, null, world.sim.notification([other.endToEndId]).pix[0]],
      evento: 'teste_webhook',
    });
    assert.equal(res.status, 200);
  });

  test('a PSP that is down when the top-up is created: 502 and no pending top-up', async () => {
    const player = await ctx().player();
    world.sim.outage = 503;
    try {
      const res = await player.client.post('/api/topups', { payment_method_id: world.methodId, amount: 10 });
      assert.equal(res.status, 502);
      assert.deepEqual(res.json, { message: 'The payment gateway is unavailable. Please try again later.' });
    } finally {
      world.sim.outage = undefined;
    }
    const list = (await player.client.get('/api/topups')).json as { data: Topup[] };
    assert.deepEqual(
      list.data.map((topup) => topup.status),
      [2],
    );
  });

  test('a token the PSP expired is refreshed, and the top-up goes through', async () => {
    const player = await ctx().player();
    const issued = world.sim.tokensIssued;
    world.sim.expireTokens();
    const topup = await createTopup(player.client, 11, world.methodId);
    assert.equal(topup.status, 0);
    assert.equal(world.sim.tokensIssued, issued + 1);
  });

  test('a lost notification is credited by reconciliation, once', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 33, world.methodId);
    world.sim.pay(topup.gateway_payment_id!, PAYER);
    const first = await ctx().app.pixReconciler.run();
    assert.equal(first.failures, 0);
    assert.equal((await topupOf(player.client, topup.id)).status, 1);
    await ctx().app.pixReconciler.run();
    await ctx().app.pixReconciler.run({ from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) });
    assert.equal(await balanceOf(ctx().db, player.id), 3300n);
    assert.equal((await ledgerOf(ctx().db, player.id)).length, 1);
  });

  test('a payment of another amount is returned once, and its top-up ends returned with a reason', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 60, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER, { amount: 5000n, force: true });
    assert.equal((await notify(ctx(), world.sim, [paid.endToEndId])).status, 200);
    assert.equal((await notify(ctx(), world.sim, [paid.endToEndId])).status, 200);
    await ctx().app.pixReconciler.run();
    const now = await topupOf(player.client, topup.id);
    assert.equal(now.status, 4);
    assert.match(String(now.reason), /50\.00.*60\.00.*returned/);
    assert.equal(await balanceOf(ctx().db, player.id), 0n);
    const returns = world.sim.payments.get(paid.endToEndId)!.returns;
    assert.deepEqual(
      returns.map((item) => [item.valor, item.status]),
      [[5000n, 'EM_PROCESSAMENTO']],
    );
    assert.deepEqual(
      (await pixPaymentsOf(ctx(), topup.id)).map((row) => [row.outcome, row.reason, row.return_status]),
      [['returned', 'amount_mismatch', 'requested']],
    );
    // The return's final state comes with a notification (the PSP's, confirmed like any other).
    world.sim.settleReturn(paid.endToEndId, returns[0]!.id, 'DEVOLVIDO');
    assert.equal((await notify(ctx(), world.sim, [paid.endToEndId])).status, 200);
    assert.equal((await pixPaymentsOf(ctx(), topup.id))[0]!.return_status, 'returned');
  });

  test('a second payment of a paid charge is returned; the top-up stays paid and the return is recorded against it', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 45, world.methodId);
    const first = world.sim.pay(topup.gateway_payment_id!, PAYER);
    await notify(ctx(), world.sim, [first.endToEndId]);
    const second = world.sim.pay(topup.gateway_payment_id!, PAYER, { force: true });
    await notify(ctx(), world.sim, [second.endToEndId]);
    const now = await topupOf(player.client, topup.id);
    assert.deepEqual([now.status, now.reason], [1, null]);
    assert.equal(await balanceOf(ctx().db, player.id), 4500n);
    assert.deepEqual(
      (await pixPaymentsOf(ctx(), topup.id)).map((row) => [row.end_to_end_id, row.outcome, row.reason]),
      [
        [first.endToEndId, 'credited', null],
        [second.endToEndId, 'returned', 'topup_paid'],
      ],
    );
    assert.deepEqual(world.sim.payments.get(first.endToEndId)!.returns, []);
    assert.equal(world.sim.payments.get(second.endToEndId)!.returns.length, 1);
  });

  test('an operator reads both payments of a twice-paid charge in the admin list: which credited, which went back and why', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 46, world.methodId);
    const first = world.sim.pay(topup.gateway_payment_id!, PAYER);
    await notify(ctx(), world.sim, [first.endToEndId]);
    const second = world.sim.pay(topup.gateway_payment_id!, PAYER, { force: true });
    await notify(ctx(), world.sim, [second.endToEndId]);
    const admin = await ctx().withRole('admin');
    const res = await admin.client.get(`/api/admin/pix-payments?topup_id=${topup.id}`);
    assert.equal(res.status, 200, res.text);
    const list = (res.json as { data: Record<string, unknown>[] }).data;
    assert.deepEqual(
      list.map((row) => [row.end_to_end_id, row.amount, row.outcome, row.reason, row.return_status]),
      [
        [second.endToEndId, 46, 'returned', 'topup_paid', 'requested'],
        [first.endToEndId, 46, 'credited', null, null],
      ],
    );
    const returned = await admin.client.get(`/api/admin/pix-payments?outcome=returned&topup_id=${topup.id}`);
    assert.deepEqual(
      (returned.json as { data: Record<string, unknown>[] }).data.map((row) => row.end_to_end_id),
      [second.endToEndId],
    );
    assert.equal((await player.client.get('/api/admin/pix-payments')).status, 403, 'a player reads no one’s payments');
  });

  test('Banco Inter’s notification, a bare array of payments, is confirmed and credited once', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 21, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    const items = world.sim.notification([paid.endToEndId]).pix;
    const answers = await Promise.all([deliver(ctx(), world.sim, items), deliver(ctx(), world.sim, items)]);
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200],
    );
    assert.equal((await topupOf(player.client, topup.id)).status, 1);
    assert.equal(await balanceOf(ctx().db, player.id), 2100n);
    assert.equal((await ledgerOf(ctx().db, player.id)).length, 1);
  });

  test('a return whose answer is lost is recorded unknown, asked about later, and never asked twice', async () => {
    const player = await ctx().player();
    const topup = await createTopup(player.client, 70, world.methodId);
    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER, { amount: 100n, force: true });
    world.sim.loseAnswers(1, (method, path) => method === 'PUT' && path.includes('/devolucao/'));
    await notify(ctx(), world.sim, [paid.endToEndId]);
    assert.equal((await pixPaymentsOf(ctx(), topup.id))[0]!.return_status, 'unknown');
    assert.equal(world.sim.payments.get(paid.endToEndId)!.returns.length, 1, 'the return the lost answer was about exists');
    await ctx().app.pixReconciler.run();
    assert.equal((await pixPaymentsOf(ctx(), topup.id))[0]!.return_status, 'requested');
    await ctx().app.pixReconciler.run();
    assert.equal(world.sim.payments.get(paid.endToEndId)!.returns.length, 1);
  });

  test('a pending top-up past its charge’s expiry expires once the PSP reports it unpaid; a paid one is credited instead', async () => {
    const player = await ctx().player();
    const unpaid = await createTopup(player.client, 10, world.methodId);
    const paidLate = await createTopup(player.client, 20, world.methodId);
    world.sim.pay(paidLate.gateway_payment_id!, PAYER);
    // Not yet past the expiry: nothing changes.
    await ctx().app.pixReconciler.run();
    assert.equal((await topupOf(player.client, unpaid.id)).status, 0);
    const later = new Date(Date.now() + 2 * 3_600_000);
    world.sim.advance(2 * 3_600_000);
    try {
      await ctx().app.pixReconciler.run({ now: later });
    } finally {
      world.sim.advance(-2 * 3_600_000);
    }
    assert.equal((await topupOf(player.client, unpaid.id)).status, 3);
    assert.equal((await topupOf(player.client, paidLate.id)).status, 1);
    assert.equal(await balanceOf(ctx().db, player.id), 2000n);
  });

  test('a method read again with its row unchanged keeps its client and token, even read by many at once; a changed row gets a new one', async () => {
    const t = ctx();
    // Rows read again on every lookup, as every lookup would after a minute.
    const methods = new PixMethods(t.db, new Keyring(t.config.appKey), { maxAgeMs: 0 });
    try {
      const player = await t.player();
      const topup = await createTopup(player.client, 5, world.methodId);
      const issued = world.sim.tokensIssued;
      const read = await Promise.all(Array.from({ length: 10 }, () => methods.byCode(world.code)));
      assert.equal(new Set(read.map((method) => method!.client)).size, 1, 'one client for every concurrent reader');
      for (const method of read) assert.equal((await method!.client.charge(topup.gateway_payment_id!)).status, 'ATIVA');
      const again = await methods.byCode(world.code);
      assert.equal(again!.client, read[0]!.client);
      assert.equal(world.sim.tokensIssued, issued + 1, 'one token for all of them');

      const renamed = await world.admin.client.put(`/api/admin/payment-methods/${world.methodId}`, { name: 'PSP renamed' });
      assert.equal(renamed.status, 200, renamed.text);
      const changed = await methods.byCode(world.code);
      assert.notEqual(changed!.client, read[0]!.client);
      assert.equal((await changed!.client.charge(topup.gateway_payment_id!)).status, 'ATIVA');
      assert.equal(world.sim.tokensIssued, issued + 2, 'the new client fetched its own token');
    } finally {
      methods.close();
    }
  });

  test('after all of the above, every balance matches its ledger and the simulator never left the spec', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
    assert.deepEqual(world.sim.drift, []);
  });
});
