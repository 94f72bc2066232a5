import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal, withdrawalBody, type Withdrawal } from './helpers.ts';

async function approved(t: TestApp, admin: SignedIn, player: SignedIn, amount: number): Promise<Withdrawal> {
  const withdrawal = await requestWithdrawal(player.client, amount);
  const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`);
  assert.equal(res.status, 200, res.text);
  return dataOf(res);
}

async function refundLines(t: TestApp, withdrawalId: number): Promise<number> {
  const [row] = await rows<{ n: number }>(
    t.db,
    sql`select count(*)::int as n from ledger_entries where type = 'withdrawal_refund' and reference_id = ${withdrawalId}`,
  );
  return row!.n;
}

describe('withdrawals under concurrency', () => {
  const ctx = useApp();

  test('20 concurrent requests of 10.00 against 100.00: exactly 10 succeed, 10 get the 422 on amount, the balance ends at 0', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const answers = await Promise.all(Array.from({ length: 20 }, () => player.client.post('/api/withdrawals', withdrawalBody(10))));
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [...Array.from({ length: 10 }, () => 201), ...Array.from({ length: 10 }, () => 422)]);
    for (const res of answers.filter((answer) => answer.status === 422)) {
      assert.deepEqual(Object.keys((res.json as { errors: object }).errors), ['amount'], res.text);
    }
    assert.equal(await balanceOf(t.db, player.id), 0n);
    assert.equal((await ledgerOf(t.db, player.id)).filter((line) => line.type === 'withdrawal').length, 10);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('20 concurrent requests with one Idempotency-Key make one withdrawal and all answer it', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const key = { 'idempotency-key': `wd-${player.id}-retry` };
    const answers = await Promise.all(Array.from({ length: 20 }, () => player.client.post('/api/withdrawals', withdrawalBody(15), key)));
    assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([201]), answers.map((res) => res.text).join('\n'));
    assert.equal(new Set(answers.map((res) => dataOf(res).id)).size, 1);
    assert.equal(await balanceOf(t.db, player.id), 8_500n);
    // Later retries too; the same key with another request is refused and moves nothing.
    const retry = await player.client.post('/api/withdrawals', withdrawalBody(15), key);
    assert.equal(dataOf(retry).id, dataOf(answers[0]!).id);
    const other = await player.client.post('/api/withdrawals', withdrawalBody(16), key);
    assert.equal(other.status, 422);
    assert.deepEqual((other.json as { errors: object }).errors, {
      idempotency_key: ['The Idempotency-Key was already used for a different withdrawal request.'],
    });
    assert.equal(await balanceOf(t.db, player.id), 8_500n);
  });

  test('one Idempotency-Key belongs to one user: another user with the same key gets their own withdrawal', async () => {
    const t = ctx();
    const [a, b] = [await t.player(), await t.player()];
    await fund(t, a.id, 1_000n);
    await fund(t, b.id, 1_000n);
    const key = { 'idempotency-key': 'shared-key-1' };
    const first = await a.client.post('/api/withdrawals', withdrawalBody(1), key);
    const second = await b.client.post('/api/withdrawals', withdrawalBody(1), key);
    assert.deepEqual([first.status, second.status], [201, 201]);
    assert.notEqual(dataOf(first).id, dataOf(second).id);
    assert.equal(dataOf(second).user_id, b.id);
  });

  test('10 concurrent rejects of one withdrawal: one 200, nine 409, one refund', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 5_000n);
    const withdrawal = await requestWithdrawal(player.client, 20);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'no' })),
    );
    assert.deepEqual(answers.map((res) => res.status).sort(), [200, ...Array.from({ length: 9 }, () => 409)]);
    assert.equal(await refundLines(t, withdrawal.id), 1);
    assert.equal(await balanceOf(t.db, player.id), 5_000n);
  });

  test('approve and reject racing resolve to one of them, and the money agrees with the winner', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 50_000n);
    for (let round = 0; round < 5; round++) {
      const withdrawal = await requestWithdrawal(player.client, 10);
      const before = await balanceOf(t.db, player.id);
      const [approve, reject] = await Promise.all([
        admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`),
        admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'race' }),
      ]);
      const final = dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`));
      // Reject may follow an approval (1 → 3); an approval never follows a rejection.
      if (approve.status === 409) {
        assert.equal(reject.status, 200);
        assert.equal(final.status, 3);
      } else {
        assert.equal(approve.status, 200);
        assert.ok([3, 1].includes(final.status));
      }
      const refunded = final.status === 3;
      assert.equal(await refundLines(t, withdrawal.id), refunded ? 1 : 0);
      assert.equal(await balanceOf(t.db, player.id), before + (refunded ? 1_000n : 0n));
    }
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });

  test('complete and fail racing on an approved withdrawal: one wins, a refund only if fail won', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 50_000n);
    for (let round = 0; round < 5; round++) {
      const withdrawal = await approved(t, admin, player, 10);
      const [complete, fail] = await Promise.all([
        admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/complete`),
        admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/fail`, { reason: 'bank down' }),
      ]);
      assert.deepEqual([complete.status, fail.status].sort(), [200, 409]);
      const final = dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`));
      assert.equal(final.status, complete.status === 200 ? 2 : 4);
      assert.equal(await refundLines(t, withdrawal.id), final.status === 4 ? 1 : 0);
    }
  });

  test('a failed payout notification sent 10 times at once refunds once; a replayed paid one changes nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const failing = await approved(t, admin, player, 30);
    const body = { reference: failing.reference, status: 'failed', amount: 30, reason: 'Key not found at the bank' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => payoutWebhook(t, body)));
    assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([200]));
    assert.equal(answers.filter((res) => !(res.json as { data: { duplicate: boolean } }).data.duplicate).length, 1);
    assert.equal(await refundLines(t, failing.id), 1);
    const shown = dataOf(await admin.client.get(`/api/admin/withdrawals/${failing.id}`));
    assert.deepEqual([shown.status, shown.reason], [4, 'Key not found at the bank']);

    const paying = await approved(t, admin, player, 20);
    const before = await balanceOf(t.db, player.id);
    for (let i = 0; i < 3; i++) {
      const res = await payoutWebhook(t, { reference: paying.reference, status: 'paid', amount: 20 });
      assert.equal(res.status, 200);
      assert.equal((res.json as { data: { duplicate: boolean } }).data.duplicate, i > 0);
    }
    assert.equal(await balanceOf(t.db, player.id), before);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});
