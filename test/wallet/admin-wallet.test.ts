import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, createTopup, ledgerOf, paid, webhook } from './helpers.ts';

interface Balance {
  id: number;
  user_id: number;
  currency: string;
  amount: number;
}

describe('admin balances, adjustments and transactions', () => {
  const ctx = useApp();

  test('creating a balance makes an empty one; a second for the same user and currency is 422', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const res = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'usd' });
    assert.equal(res.status, 201);
    const balance = (res.json as { data: Balance }).data;
    assert.deepEqual([balance.user_id, balance.currency, balance.amount], [player.id, 'USD', 0]);
    const again = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'USD' });
    assert.deepEqual((again.json as { errors: object }).errors, { currency: ['The user already has a balance in this currency.'] });
    const nobody = await admin.client.post('/api/admin/balances', { user_id: 999999, currency: 'USD' });
    assert.deepEqual((nobody.json as { errors: object }).errors, { user_id: ['The selected user id is invalid.'] });
  });

  test('the amount is never set directly: create or update with amount is 422', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const created = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'EUR', amount: 100 });
    assert.equal(created.status, 422);
    assert.deepEqual(Object.keys((created.json as { errors: object }).errors), ['amount']);
    const ok = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'EUR' });
    const id = (ok.json as { data: Balance }).data.id;
    assert.equal((await admin.client.put(`/api/admin/balances/${id}`, { amount: 5 })).status, 422);
    assert.equal((await admin.client.get(`/api/admin/balances/${id}`)).status, 200);
  });

  test('user and currency change only while the balance has no ledger lines; deleting one with lines is 409', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const other = await t.player();
    const created = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'GBP' });
    const id = (created.json as { data: Balance }).data.id;
    const moved = await admin.client.put(`/api/admin/balances/${id}`, { user_id: other.id, currency: 'CHF' });
    assert.equal(moved.status, 200);
    assert.deepEqual([(moved.json as { data: Balance }).data.user_id, (moved.json as { data: Balance }).data.currency], [other.id, 'CHF']);
    assert.equal((await admin.client.post(`/api/admin/balances/${id}/adjust`, { amount: 1, reason: 'test' })).status, 200);
    const refused = await admin.client.put(`/api/admin/balances/${id}`, { currency: 'JPY' });
    assert.deepEqual(
      [refused.status, refused.json],
      [409, { message: 'The balance has ledger lines; its user and currency cannot change.' }],
    );
    const deleted = await admin.client.delete(`/api/admin/balances/${id}`);
    assert.deepEqual([deleted.status, deleted.json], [409, { message: 'The balance has ledger lines and cannot be deleted.' }]);
    const empty = await admin.client.post('/api/admin/balances', { user_id: other.id, currency: 'SEK' });
    assert.equal((await admin.client.delete(`/api/admin/balances/${(empty.json as { data: Balance }).data.id}`)).status, 204);
  });

  test('adjust writes one adjustment line and answers the balance; below zero or zero is 422 on amount', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const topup = await createTopup(player.client, 20);
    await webhook(t, paid(topup));
    const [balance] = await rows<{ id: number }>(t.db, sql`select id from balances where user_id = ${player.id}`);
    const path = `/api/admin/balances/${Number(balance!.id)}/adjust`;
    const down = await admin.client.post(path, { amount: '-5.25', reason: 'chargeback fee' });
    assert.equal(down.status, 200);
    assert.equal((down.json as { data: Balance }).data.amount, 14.75);
    const below = await admin.client.post(path, { amount: -14.76, reason: 'too much' });
    assert.deepEqual(below.json, {
      message: 'The balance would go below 0; it is 14.75.',
      errors: { amount: ['The balance would go below 0; it is 14.75.'] },
    });
    assert.equal((await admin.client.post(path, { amount: 0, reason: 'nothing' })).status, 422);
    assert.equal((await admin.client.post(path, { amount: 1.001, reason: 'x' })).status, 422);
    assert.deepEqual(Object.keys(((await admin.client.post(path, { amount: 1 })).json as { errors: object }).errors), ['reason']);
    assert.equal((await admin.client.post('/api/admin/balances/999999/adjust', { amount: 1, reason: 'x' })).status, 404);
    const lines = await ledgerOf(t.db, player.id);
    assert.deepEqual(
      lines.map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['topup', 2000n, 2000n],
        ['adjustment', -525n, 1475n],
      ],
    );
    const logs = await rows(t.db, sql`select 1 from operation_logs where path = ${path}`);
    assert.equal(logs.length, 1);
  });

  test('an Idempotency-Key header makes a repeated adjustment move money once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const created = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'BRL' });
    const path = `/api/admin/balances/${(created.json as { data: Balance }).data.id}/adjust`;
    for (let i = 0; i < 3; i++) {
      const res = await admin.client.post(path, { amount: 10, reason: 'goodwill' }, { 'idempotency-key': 'goodwill-1' });
      assert.equal((res.json as { data: Balance }).data.amount, 10);
    }
    assert.equal(await balanceOf(t.db, player.id), 1000n);
  });

  test('10 concurrent adjustments with one Idempotency-Key all answer 200 and move money once', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    const created = await admin.client.post('/api/admin/balances', { user_id: player.id, currency: 'BRL' });
    const path = `/api/admin/balances/${(created.json as { data: Balance }).data.id}/adjust`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => admin.client.post(path, { amount: 25, reason: 'goodwill' }, { 'idempotency-key': 'race-1' })),
    );
    assert.deepEqual(
      answers.map((res) => res.status),
      Array.from({ length: 10 }, () => 200),
    );
    assert.equal(await balanceOf(t.db, player.id), 2500n);
    const lines = await rows(t.db, sql`select 1 from ledger_entries where user_id = ${player.id} and type = 'adjustment'`);
    assert.equal(lines.length, 1);
  });

  test('an Idempotency-Key reused for another amount or balance is a 422 that moves nothing', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const [first, second] = [await t.player(), await t.player()];
    const adjust = async (userId: number) => {
      const created = await admin.client.post('/api/admin/balances', { user_id: userId, currency: 'BRL' });
      return `/api/admin/balances/${(created.json as { data: Balance }).data.id}/adjust`;
    };
    const [path, otherPath] = [await adjust(first.id), await adjust(second.id)];
    const headers = { 'idempotency-key': 'reused-key' };
    assert.equal((await admin.client.post(path, { amount: 10, reason: 'goodwill' }, headers)).status, 200);
    for (const [target, amount] of [
      [path, 11],
      [otherPath, 10],
    ] as const) {
      const res = await admin.client.post(target, { amount, reason: 'goodwill' }, headers);
      assert.equal(res.status, 422);
      assert.deepEqual((res.json as { errors: unknown }).errors, {
        idempotency_key: ['The Idempotency-Key was already used for a different adjustment.'],
      });
    }
    assert.equal(await balanceOf(t.db, first.id), 1000n);
    assert.equal(await balanceOf(t.db, second.id), 0n);
  });

  test('admin transactions list the ledger with filters user_id, type and dates', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const player = await t.player();
    await webhook(t, paid(await createTopup(player.client, 5)));
    const [balance] = await rows<{ id: number }>(t.db, sql`select id from balances where user_id = ${player.id}`);
    await admin.client.post(`/api/admin/balances/${Number(balance!.id)}/adjust`, { amount: 1, reason: 'bonus' });
    const all = await admin.client.get(`/api/admin/transactions?user_id=${player.id}`);
    const data = (all.json as { data: { type: string; amount: number; balance_after: number }[] }).data;
    assert.deepEqual(
      data.map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['adjustment', 1, 6],
        ['topup', 5, 5],
      ],
    );
    const topups = await admin.client.get(`/api/admin/transactions?user_id=${player.id}&type=topup`);
    assert.equal((topups.json as { data: unknown[] }).data.length, 1);
    assert.equal((await admin.client.get('/api/admin/transactions?type=nope')).status, 422);
    const future = await admin.client.get(`/api/admin/transactions?user_id=${player.id}&from=2999-01-01`);
    assert.equal((future.json as { data: unknown[] }).data.length, 0);
    assert.equal((await player.client.get('/api/admin/transactions')).status, 403);
    assert.equal((await player.client.get('/api/admin/balances')).status, 403);
  });
});

describe('payment methods', () => {
  const ctx = useApp();

  test('a fresh database has PIX on the sandbox gateway, 1.00 to 50000.00, enabled', async () => {
    const player = await ctx().player();
    const res = await player.client.get('/api/payment-methods');
    assert.equal(res.status, 200);
    const body = res.json as { data: Record<string, unknown>[]; meta: { total: number } };
    assert.equal(body.meta.total, 1);
    const pix = Object.fromEntries(Object.entries(body.data[0]!).filter(([key]) => !key.endsWith('_at')));
    assert.deepEqual(pix, { id: 1, name: 'PIX', code: 'pix', gateway: 'sandbox', min_amount: 1, max_amount: 50000, status: 1, sort: 0 });
  });

  test('admins create, update and delete methods; customers see enabled ones by sort', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const create = (body: Record<string, unknown>) => admin.client.post('/api/admin/payment-methods', body);
    const first = await create({
      name: 'PIX Express',
      code: 'pix-express',
      gateway: 'sandbox',
      min_amount: '5',
      max_amount: 100.5,
      sort: -1,
    });
    assert.equal(first.status, 201);
    const express = (first.json as { data: { id: number; min_amount: number; max_amount: number } }).data;
    assert.deepEqual([express.min_amount, express.max_amount], [5, 100.5]);
    const hidden = await create({ name: 'Hidden', code: 'hidden', gateway: 'sandbox', min_amount: 1, max_amount: 2, status: 0 });
    assert.equal(hidden.status, 201);
    const player = await t.player();
    const list = await player.client.get('/api/payment-methods');
    assert.deepEqual(
      (list.json as { data: { code: string }[] }).data.map((method) => method.code),
      ['pix-express', 'pix'],
    );
    const bad = await create({ name: 'X', code: 'Bad Code', gateway: 'nowhere', min_amount: 10, max_amount: 5 });
    assert.equal(bad.status, 422);
    assert.deepEqual(Object.keys((bad.json as { errors: object }).errors), ['code']);
    const bad2 = await create({ name: 'X', code: 'x', gateway: 'nowhere', min_amount: 10, max_amount: 5 });
    assert.deepEqual((bad2.json as { errors: object }).errors, {
      gateway: ['The selected gateway is invalid.'],
      max_amount: ['The max amount field must be greater than or equal to the min amount.'],
    });
    assert.deepEqual(
      ((await create({ name: 'Dup', code: 'pix', gateway: 'sandbox', min_amount: 1, max_amount: 2 })).json as { errors: object }).errors,
      {
        code: ['The code has already been taken.'],
      },
    );
    const narrowed = await admin.client.put(`/api/admin/payment-methods/${express.id}`, { max_amount: 4 });
    assert.deepEqual((narrowed.json as { errors: object }).errors, {
      max_amount: ['The max amount field must be greater than or equal to the min amount.'],
    });
    const renamed = await admin.client.put(`/api/admin/payment-methods/${express.id}`, { name: 'PIX Fast', status: 0 });
    assert.equal((renamed.json as { data: { name: string } }).data.name, 'PIX Fast');
    assert.equal((await admin.client.delete(`/api/admin/payment-methods/${express.id}`)).status, 204);
    const pixInUse = await createTopup(player.client, 10);
    assert.ok(pixInUse.id > 0);
    const inUse = await admin.client.delete('/api/admin/payment-methods/1');
    assert.equal(inUse.status, 409);
    assert.equal((await player.client.post('/api/admin/payment-methods', { name: 'x' })).status, 403);
  });
});
