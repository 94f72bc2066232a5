import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type SignedIn } from '../helpers/app.ts';
import { countLogs, lastLog, page, userWithPermissions } from '../admin/support.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { dataOf, fund, payoutWebhook, requestWithdrawal, type Withdrawal } from './helpers.ts';

type Action = 'approve' | 'reject' | 'complete' | 'fail';
const BODY: Record<Action, Record<string, unknown> | undefined> = {
  approve: undefined,
  reject: { reason: 'Payee name does not match the account' },
  complete: undefined,
  fail: { reason: 'The bank refused the transfer' },
};

/** The withdrawal moved to `status` through the API: 0 as asked, 1 approved, 2 paid, 3 rejected, 4 failed. */
async function withdrawalIn(admin: SignedIn, player: SignedIn, status: number): Promise<Withdrawal> {
  const withdrawal = await requestWithdrawal(player.client, 10);
  const path = (action: Action) => `/api/admin/withdrawals/${withdrawal.id}/${action}`;
  const steps: Record<number, Action[]> = { 0: [], 1: ['approve'], 2: ['approve', 'complete'], 3: ['reject'], 4: ['approve', 'fail'] };
  for (const action of steps[status]!) assert.equal((await admin.client.post(path(action), BODY[action])).status, 200);
  return withdrawal;
}

describe('reviewing withdrawals', () => {
  const ctx = useApp();

  // docs/api.md section 8: approve from 0; reject from 0 or 1; complete and fail from 1; any other 409.
  const ALLOWED: Record<Action, number[]> = { approve: [0], reject: [0, 1], complete: [1], fail: [1] };
  const TARGET: Record<Action, number> = { approve: 1, reject: 3, complete: 2, fail: 4 };
  const NAMES = ['pending', 'approved', 'paid', 'rejected', 'failed'];
  const VERBS: Record<Action, string> = { approve: 'approved', reject: 'rejected', complete: 'completed', fail: 'failed' };

  for (const action of ['approve', 'reject', 'complete', 'fail'] as const) {
    test(`${action} moves only from ${ALLOWED[action].map((s) => NAMES[s]).join(' or ')}; from anything else it is a 409 that moves nothing`, async () => {
      const t = ctx();
      const admin = await t.withRole('super-admin');
      const player = await t.player();
      await fund(t, player.id, 100_000n);
      for (const from of [0, 1, 2, 3, 4]) {
        const withdrawal = await withdrawalIn(admin, player, from);
        const balance = await balanceOf(t.db, player.id);
        const logs = await countLogs(t);
        const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/${action}`, BODY[action]);
        if (ALLOWED[action].includes(from)) {
          assert.equal(res.status, 200, `${action} from ${from}: ${res.text}`);
          const after = dataOf(res);
          assert.equal(after.status, TARGET[action]);
          const refund = action === 'reject' || action === 'fail' ? 1_000n : 0n;
          assert.equal(await balanceOf(t.db, player.id), balance + refund);
          assert.equal(after.reviewed_by, admin.id);
          assert.ok(after.reviewed_at !== null);
          assert.equal(after.reason, BODY[action]?.reason ?? null);
          assert.equal(after.paid_at !== null, action === 'complete');
          assert.equal(await countLogs(t), logs + 1, 'the change is in the operation log');
          assert.equal((await lastLog(t)).path, `/api/admin/withdrawals/${withdrawal.id}/${action}`);
        } else {
          assert.equal(res.status, 409, `${action} from ${from}: ${res.text}`);
          assert.deepEqual(res.json, { message: `A withdrawal that is ${NAMES[from]} cannot be ${VERBS[action]}.` });
          assert.equal(await balanceOf(t.db, player.id), balance);
          assert.equal(await countLogs(t), logs, 'a refused change writes no operation log');
        }
      }
    });
  }

  test('reject and fail need a reason; an unknown withdrawal is a 404 whatever the body', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    const withdrawal = await requestWithdrawal(player.client, 10);
    for (const body of [{}, { reason: '' }, { reason: '   ' }]) {
      const res = await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, body);
      assert.equal(res.status, 422);
      assert.deepEqual((res.json as { errors: object }).errors, { reason: ['The reason field is required.'] });
    }
    assert.equal((await admin.client.post('/api/admin/withdrawals/99999999/reject', {})).status, 404);
    assert.equal((await admin.client.post('/api/admin/withdrawals/abc/approve')).status, 404);
    assert.equal(dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, 0);
  });

  test('operators need withdrawals.view to read and withdrawals.manage to act; players neither', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 1_000n);
    const withdrawal = await requestWithdrawal(player.client, 10);
    const viewer = await userWithPermissions(t, ['withdrawals.view']);
    const manager = await userWithPermissions(t, ['withdrawals.view', 'withdrawals.manage']);
    assert.equal((await player.client.get('/api/admin/withdrawals')).status, 403);
    assert.equal((await player.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`)).status, 403);
    assert.equal((await viewer.client.get('/api/admin/withdrawals')).status, 200);
    assert.equal((await viewer.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, 200);
    assert.equal((await viewer.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`)).status, 403);
    assert.equal((await manager.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`)).status, 200);
  });

  test('the admin list filters by status, user, key type and inclusive days; customers see only their own', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const [a, b] = [await t.player(), await t.player()];
    await fund(t, a.id, 10_000n);
    await fund(t, b.id, 10_000n);
    const a1 = await requestWithdrawal(a.client, 1);
    const a2 = await requestWithdrawal(a.client, 2, { account_type: 'EMAIL', payee_account: 'a@example.com' });
    const b1 = await requestWithdrawal(b.client, 3);
    await admin.client.post(`/api/admin/withdrawals/${a2.id}/approve`);
    const ids = async (query: string) =>
      page<Withdrawal>((await admin.client.get(`/api/admin/withdrawals?${query}`)).json)
        .data.map((item) => item.id)
        .filter((id) => [a1.id, a2.id, b1.id].includes(id));
    assert.deepEqual(await ids(`user_id=${a.id}`), [a2.id, a1.id]);
    // The same shape of request with another value (its statement is built once and reused).
    assert.deepEqual(await ids(`user_id=${b.id}`), [b1.id]);
    assert.deepEqual(await ids(`user_id=${a.id}&status=1`), [a2.id]);
    assert.deepEqual(await ids(`user_id=${a.id}&account_type=CPF`), [a1.id]);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await ids(`from=${today}&to=${today}&per_page=100`), [b1.id, a2.id, a1.id]);
    assert.deepEqual(await ids('to=2000-01-01'), []);
    assert.equal((await admin.client.get('/api/admin/withdrawals?status=9')).status, 422);
    assert.equal((await admin.client.get('/api/admin/withdrawals?account_type=IBAN')).status, 422);

    const own = page<Withdrawal>((await b.client.get('/api/withdrawals')).json);
    assert.deepEqual(
      own.data.map((item) => item.id),
      [b1.id],
    );
    assert.equal(own.meta.total, 1);
    assert.ok(!('reference' in own.data[0]!), 'customers do not see the payout reference');
  });

  test('payout notifications: a bad signature is 401, an unknown reference 404, another amount 422, and none changes anything', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 25);
    const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`));
    const body = { reference: approved.reference, status: 'failed', amount: 25 };
    assert.equal((await payoutWebhook(t, body, { secret: 'wrong' })).status, 401);
    assert.equal((await payoutWebhook(t, body, { at: Math.floor(Date.now() / 1000) - 3600 })).status, 401);
    assert.equal((await payoutWebhook(t, { ...body, reference: 'WDnothing' })).status, 404);
    assert.equal((await payoutWebhook(t, body, { gateway: 'elsewhere' })).status, 404);
    const wrongAmount = await payoutWebhook(t, { ...body, amount: 24.99 });
    assert.equal(wrongAmount.status, 422);
    assert.deepEqual((wrongAmount.json as { errors: object }).errors, { amount: ['The amount does not match the withdrawal.'] });
    assert.equal((await payoutWebhook(t, { ...body, status: 'maybe' })).status, 422);
    assert.equal(dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, 1);
    assert.equal(await balanceOf(t.db, player.id), 7_500n);
  });

  test('a paid notification for a withdrawal an operator rejected meanwhile is a 409 for manual review, and moves nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 25);
    const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`));
    await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/reject`, { reason: 'fraud suspected' });
    const res = await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 25 });
    assert.equal(res.status, 409);
    assert.deepEqual(res.json, { message: 'The withdrawal is rejected; the payout notification needs manual review.' });
    assert.equal(await balanceOf(t.db, player.id), 10_000n);
  });

  test('a fee is deducted from what is paid out: the notification carries the net amount', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    await admin.client.put('/api/admin/settings/withdraw', {
      min_amount_for_player: 0,
      min_amount_for_partner: 0,
      fee_rate: 2,
      total_bet: 0,
      referred_users_count: 0,
      total_topped_up: 0,
    });
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const withdrawal = await requestWithdrawal(player.client, 50);
    assert.deepEqual([withdrawal.fee, withdrawal.net_amount], [1, 49]);
    const approved = dataOf(await admin.client.post(`/api/admin/withdrawals/${withdrawal.id}/approve`));
    assert.equal((await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 50 })).status, 422);
    const paid = await payoutWebhook(t, { reference: approved.reference, status: 'paid', amount: 49 });
    assert.equal(paid.status, 200, paid.text);
    const lines = await ledgerOf(t.db, player.id);
    assert.deepEqual(
      lines.map((line) => [line.type, line.amount]),
      [
        ['adjustment', 10_000n],
        ['withdrawal', -5_000n],
      ],
    );
    const [row] = await rows<{ status: number }>(t.db, sql`select status from withdrawals where id = ${withdrawal.id}`);
    assert.equal(Number(row!.status), 2);
  });
});

describe('a payout notification for a withdrawal that was never approved', () => {
  const logged: { level: number; msg?: string; withdrawalId?: number; reported?: string }[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logged.push(JSON.parse(line) as (typeof logged)[number]);
  });
  const ctx = useApp({ LOG_LEVEL: 'error' }, { logStream });

  test('pending, or rejected while pending: a 409 for manual review and an error line naming it; nothing moves', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const pending = await requestWithdrawal(player.client, 25);
    const rejected = await requestWithdrawal(player.client, 30);
    await admin.client.post(`/api/admin/withdrawals/${rejected.id}/reject`, { reason: 'fraud suspected' });

    for (const [withdrawal, name, status] of [
      [pending, 'pending', 0],
      [rejected, 'rejected', 3],
    ] as const) {
      const { reference } = dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`));
      const res = await payoutWebhook(t, { reference, status: 'paid', amount: withdrawal.amount });
      assert.deepEqual(
        [res.status, res.json],
        [409, { message: `The withdrawal is ${name}; the payout notification needs manual review.` }],
      );
      assert.equal(dataOf(await admin.client.get(`/api/admin/withdrawals/${withdrawal.id}`)).status, status);
      const line = logged.find((entry) => entry.withdrawalId === withdrawal.id);
      assert.equal(line?.level, 50, `an error line for withdrawal ${withdrawal.id}`);
      assert.equal(line.reported, 'paid');
    }
    assert.equal(await balanceOf(t.db, player.id), 7_500n, 'the rejected one was refunded once; the pending one is still held');
  });
});
