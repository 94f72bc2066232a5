// Issue 34, item 1 (the audit of top-ups): a charge at a PSP's API Pix is credited only by the
// payment the PSP confirms. An operator's confirm (or PUT status 1) of it is a 409 that changes
// nothing, also when it races the PSP's notification: otherwise the player is credited by hand,
// the PSP's payment then reads as a second one and goes back to the payer, and the player keeps
// both. Against the PSP simulator, over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { useApp, type Response } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf } from '../wallet/helpers.ts';
import { notify, PAYER, pixPaymentsOf, pixWorld, type PixWorld } from './helpers.ts';

const AT_PSP = 'The charge is at the PSP: only a payment the PSP confirms can credit this top-up.';

describe('a charge at a PSP is credited only by the payment the PSP confirms', () => {
  const ctx = useApp();
  let world: PixWorld;
  before(async () => {
    world = await pixWorld(ctx());
  });
  after(async () => {
    await world?.sim.stop();
  });

  const byHand = (id: number): Promise<Response[]> =>
    Promise.all([
      world.admin.client.post(`/api/admin/topups/${id}/confirm`),
      world.admin.client.put(`/api/admin/topups/${id}`, { status: 1 }),
    ]);

  test('confirm and PUT status 1 by hand are 409 and credit nothing; the PSP’s payment then credits it once and nothing goes back', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 30, world.methodId);
    for (const res of await byHand(topup.id)) {
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.json, { message: AT_PSP });
    }
    assert.equal(await balanceOf(t.db, player.id), 0n);

    const paid = world.sim.pay(topup.gateway_payment_id!, PAYER);
    assert.equal((await notify(t, world.sim, [paid.endToEndId])).status, 200);
    assert.equal(await balanceOf(t.db, player.id), 3_000n);
    assert.deepEqual(
      (await pixPaymentsOf(t, topup.id)).map((row) => row.outcome),
      ['credited'],
    );
    assert.deepEqual(world.sim.payments.get(paid.endToEndId)!.returns, [], 'nothing was sent back to the payer');

    // Once paid, the answer says so.
    const again = await world.admin.client.post(`/api/admin/topups/${topup.id}/confirm`);
    assert.deepEqual([again.status, again.json], [409, { message: 'The top-up is already paid.' }]);
  });

  test('an operator’s confirm racing the PSP’s notification: the confirm is 409, the player is credited once and nothing goes back', async () => {
    const t = ctx();
    const player = await t.player();
    for (let round = 0; round < 4; round++) {
      const topup = await createTopup(player.client, 10, world.methodId);
      const payment = world.sim.pay(topup.gateway_payment_id!, PAYER);
      const [confirm, notified] = await Promise.all([
        world.admin.client.post(`/api/admin/topups/${topup.id}/confirm`),
        notify(t, world.sim, [payment.endToEndId]),
      ]);
      assert.equal(confirm.status, 409, confirm.text);
      assert.equal(notified.status, 200, notified.text);
      assert.deepEqual(
        (await pixPaymentsOf(t, topup.id)).map((row) => row.outcome),
        ['credited'],
      );
      assert.deepEqual(world.sim.payments.get(payment.endToEndId)!.returns, []);
    }
    assert.equal(await balanceOf(t.db, player.id), 4_000n);
    assert.deepEqual(
      (await ledgerOf(t.db, player.id)).map((line) => line.type),
      ['topup', 'topup', 'topup', 'topup'],
    );
  });
});
