import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { PaymentGateway } from '../../src/modules/payments/gateways/gateway.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, paid, webhook, type Topup } from './helpers.ts';

describe('top-ups', () => {
  const ctx = useApp();

  test('creating needs a signed-in user and the CSRF token', async () => {
    const t = ctx();
    const guest = t.client();
    await guest.csrf();
    assert.equal((await guest.post('/api/topups', { payment_method_id: 1, amount: 10 })).status, 401);
    const player = await t.player();
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 10 }, { 'x-xsrf-token': '' })).status, 419);
  });

  test('the amount must be within the method’s min and max, with clear messages', async () => {
    const { client } = await ctx().player();
    const low = await client.post('/api/topups', { payment_method_id: 1, amount: 0.99 });
    assert.deepEqual(low.json, { message: 'The amount must be at least 1.00.', errors: { amount: ['The amount must be at least 1.00.'] } });
    const high = await client.post('/api/topups', { payment_method_id: 1, amount: '50000.01' });
    assert.deepEqual(high.json, {
      message: 'The amount must not be greater than 50000.00.',
      errors: { amount: ['The amount must not be greater than 50000.00.'] },
    });
    assert.equal((await client.post('/api/topups', { payment_method_id: 1, amount: 50000 })).status, 201);
    assert.equal((await client.post('/api/topups', { payment_method_id: 1, amount: '1' })).status, 201);
  });

  test('malformed amounts are 422 on amount', async () => {
    const { client } = await ctx().player();
    for (const [amount, message] of [
      [10.001, 'The amount field must have 0-2 decimal places.'],
      [-10, 'The amount field must be at least 0.01.'],
      ['NaN', 'The amount field must be a number.'],
      ['1e400', 'The amount field must be a number.'],
      ['99999999999999999999', 'The amount field must not be greater than 999999999999.99.'],
    ] as const) {
      const res = await client.post('/api/topups', { payment_method_id: 1, amount });
      assert.equal(res.status, 422, String(amount));
      assert.deepEqual((res.json as { errors: object }).errors, { amount: [message] }, String(amount));
    }
    const missing = await client.post('/api/topups', {});
    assert.deepEqual(Object.keys((missing.json as { errors: object }).errors), ['payment_method_id', 'amount']);
  });

  test('an unknown or disabled payment method is 422 on payment_method_id', async () => {
    const t = ctx();
    const { client } = await t.player();
    const unknown = await client.post('/api/topups', { payment_method_id: 999, amount: 10 });
    assert.deepEqual(unknown.json, {
      message: 'The selected payment method id is invalid.',
      errors: { payment_method_id: ['The selected payment method id is invalid.'] },
    });
    const admin = await t.withRole('super-admin');
    const created = await admin.client.post('/api/admin/payment-methods', {
      name: 'Off',
      code: 'pix-off',
      gateway: 'sandbox',
      min_amount: 1,
      max_amount: 10,
      status: 0,
    });
    assert.equal(created.status, 201);
    const id = (created.json as { data: { id: number } }).data.id;
    assert.equal((await client.post('/api/topups', { payment_method_id: id, amount: 5 })).status, 422);
  });

  test('a failing gateway leaves the top-up cancelled, not pending, and answers 502', async () => {
    const t = ctx();
    const broken: PaymentGateway = {
      code: 'broken',
      createCharge: async () => {
        throw new Error('connection refused');
      },
      verifyWebhook: () => {
        throw new Error('unused');
      },
      queryStatus: async () => 'unknown',
    };
    t.app.paymentGateways.register(broken);
    const admin = await t.withRole('super-admin');
    const method = await admin.client.post('/api/admin/payment-methods', {
      name: 'Broken',
      code: 'broken',
      gateway: 'broken',
      min_amount: 1,
      max_amount: 100,
    });
    const id = (method.json as { data: { id: number } }).data.id;
    const player = await t.player();
    const res = await player.client.post('/api/topups', { payment_method_id: id, amount: 10 });
    assert.equal(res.status, 502);
    assert.deepEqual(res.json, { message: 'The payment gateway is unavailable. Please try again later.' });
    const list = await player.client.get('/api/topups');
    assert.deepEqual(
      (list.json as { data: Topup[] }).data.map((topup) => [topup.status, topup.qr_code, topup.payment_url]),
      [[2, null, null]],
    );
  });

  test('a pending top-up older than 24 hours reads as expired (3) and can no longer be confirmed or cancelled by an admin', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const topup = await createTopup(player.client, 10);
    await t.db.execute(sql`update topups set created_at = now() - interval '24 hours 1 second' where id = ${topup.id}`);
    const detail = await admin.client.get(`/api/admin/topups/${topup.id}`);
    assert.equal((detail.json as { data: Topup }).data.status, 3);
    const confirm = await admin.client.post(`/api/admin/topups/${topup.id}/confirm`);
    assert.deepEqual([confirm.status, confirm.json], [409, { message: 'The top-up has expired.' }]);
    assert.equal((await admin.client.put(`/api/admin/topups/${topup.id}`, { status: 2 })).status, 409);
    const expired = await admin.client.get(`/api/admin/topups?status=3&user_id=${player.id}`);
    assert.deepEqual(
      (expired.json as { data: Topup[] }).data.map((row) => row.id),
      [topup.id],
    );
    assert.equal(await balanceOf(t.db, player.id), 0n);
  });

  test('admin status changes: 0→2 cancels, 0→1 credits; every other transition is 409, an unknown status 422', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const toCancel = await createTopup(player.client, 10);
    const cancelled = await admin.client.put(`/api/admin/topups/${toCancel.id}`, { status: 2 });
    assert.equal(cancelled.status, 200);
    assert.equal((cancelled.json as { data: Topup }).data.status, 2);
    assert.deepEqual((await admin.client.put(`/api/admin/topups/${toCancel.id}`, { status: 1 })).json, {
      message: 'The top-up is cancelled.',
    });
    assert.equal((await admin.client.put(`/api/admin/topups/${toCancel.id}`, { status: 0 })).status, 409);
    assert.equal((await admin.client.post(`/api/admin/topups/${toCancel.id}/confirm`)).status, 409);

    const toPay = await createTopup(player.client, 15);
    assert.equal((await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 0 })).status, 409);
    assert.equal((await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 3 })).status, 409);
    const unknown = await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 7 });
    assert.deepEqual(unknown.json, { message: 'The selected status is invalid.', errors: { status: ['The selected status is invalid.'] } });
    const paidRes = await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 1 });
    assert.equal(paidRes.status, 200);
    const record = (paidRes.json as { data: Topup }).data;
    assert.equal(record.status, 1);
    assert.ok(typeof record.paid_at === 'string');
    assert.deepEqual((await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 2 })).json, {
      message: 'A top-up cannot go from paid to cancelled.',
    });
    assert.deepEqual((await admin.client.put(`/api/admin/topups/${toPay.id}`, { status: 1 })).json, {
      message: 'The top-up is already paid.',
    });
    assert.deepEqual((await admin.client.post(`/api/admin/topups/${toPay.id}/confirm`)).json, { message: 'The top-up is already paid.' });
    // A webhook for it afterwards is a harmless duplicate.
    const late = await webhook(t, paid(toPay));
    assert.deepEqual(late.json, { data: { topup_id: toPay.id, status: 1, duplicate: true } });
    assert.equal(await balanceOf(t.db, player.id), 1500n);
    assert.equal((await ledgerOf(t.db, player.id)).length, 1);
    assert.equal((await admin.client.put('/api/admin/topups/999999', { status: 1 })).status, 404);
    assert.equal((await admin.client.post('/api/admin/topups/999999/confirm')).status, 404);
    const logs = await rows<{ path: string; method: string; payload: unknown }>(
      t.db,
      sql`select path, method, payload from operation_logs where path like ${`/api/admin/topups/${toPay.id}%`} order by id`,
    );
    assert.deepEqual(
      logs.map((log) => [log.method, log.path]),
      [['PUT', `/api/admin/topups/${toPay.id}`]],
    );
  });

  test('admin top-up list filters by user, status and dates, newest first', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const a = await createTopup(player.client, 1);
    const b = await createTopup(player.client, 2);
    await webhook(t, paid(b));
    const all = await admin.client.get(`/api/admin/topups?user_id=${player.id}`);
    assert.deepEqual(
      (all.json as { data: Topup[] }).data.map((row) => row.id),
      [b.id, a.id],
    );
    assert.equal((all.json as { meta: { total: number } }).meta.total, 2);
    const paidOnly = await admin.client.get(`/api/admin/topups?user_id=${player.id}&status=1`);
    assert.deepEqual(
      (paidOnly.json as { data: Topup[] }).data.map((row) => row.id),
      [b.id],
    );
    const today = new Date().toISOString().slice(0, 10);
    const dated = await admin.client.get(`/api/admin/topups?user_id=${player.id}&from=${today}&to=${today}`);
    assert.equal((dated.json as { data: Topup[] }).data.length, 2);
    const before = await admin.client.get(`/api/admin/topups?user_id=${player.id}&to=2000-01-01`);
    assert.equal((before.json as { data: Topup[] }).data.length, 0);
    assert.equal((await player.client.get('/api/admin/topups')).status, 403);
    assert.equal((await player.client.post(`/api/admin/topups/${a.id}/confirm`)).status, 403);
  });

  test('the payment page shows the amount in reais and the PIX code as text, under a policy that lets exactly its inline script and style run', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, '1150.75');
    const page = await t.app.inject({ method: 'GET', url: new URL(topup.payment_url!).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<p class="amount">R\$\u00a01\.150,75<\/p>/);
    assert.ok(page.body.includes(`<code class="code" id="pix-code">${topup.qr_code}</code>`));
    // The copy button shows only when the script runs: without it, no button that does nothing.
    assert.match(page.body, /<button type="button" class="copy" hidden>/);
    const policy = String(page.headers['content-security-policy']);
    const hash = (tag: 'script' | 'style') => {
      const text = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(page.body)![1]!;
      return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    };
    assert.equal(
      policy,
      `default-src 'none'; script-src ${hash('script')}; style-src ${hash('style')}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });

  test('the payment page of an unknown id is a JSON 404; a paid top-up shows no QR code any more', async () => {
    const t = ctx();
    const missing = await t.app.inject({ method: 'GET', url: '/pay/AAAAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(JSON.parse(missing.body), { message: 'Not found.' });
    const player = await t.player();
    const topup = await createTopup(player.client, 3);
    await webhook(t, paid(topup));
    const page = await t.app.inject({ method: 'GET', url: new URL(topup.payment_url!).pathname });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Paid/);
    assert.doesNotMatch(page.body, /<img/);
    assert.doesNotMatch(page.body, /id="pix-code"/);
  });
});
