import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';

describe('settings', () => {
  const ctx = useApp();

  test('a fresh database has every setting at 0 / empty', async () => {
    const admin = await ctx().withRole('super-admin');
    assert.deepEqual((await admin.client.get('/api/admin/settings/referral')).json, {
      data: { bonus: 0, topped_up_bonus: 0, topped_up_bonus_rate: 0 },
    });
    assert.deepEqual((await admin.client.get('/api/admin/settings/topup')).json, {
      data: { gift_rate_first_time: 0, gift_rate: 0, options: [] },
    });
    assert.deepEqual((await admin.client.get('/api/admin/settings/withdraw')).json, {
      data: { min_amount_for_player: 0, min_amount_for_partner: 0, fee_rate: 0, total_bet: 0, referred_users_count: 0, total_topped_up: 0 },
    });
  });

  test('PUT replaces the set, answers it, and stores it as a new version with an operation-log row', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const body = {
      min_amount_for_player: '50',
      min_amount_for_partner: 100.5,
      fee_rate: 2.25,
      total_bet: 200,
      referred_users_count: 3,
      total_topped_up: '0.01',
    };
    const res = await admin.client.put('/api/admin/settings/withdraw', body);
    assert.equal(res.status, 200);
    const expected = {
      data: {
        min_amount_for_player: 50,
        min_amount_for_partner: 100.5,
        fee_rate: 2.25,
        total_bet: 200,
        referred_users_count: 3,
        total_topped_up: 0.01,
      },
    };
    assert.deepEqual(res.json, expected);
    assert.deepEqual((await admin.client.get('/api/admin/settings/withdraw')).json, expected);
    await admin.client.put('/api/admin/settings/withdraw', { ...body, fee_rate: 0 });
    const versions = await rows<{ version: number }>(t.db, sql`select version from settings where name = 'withdraw' order by version`);
    assert.deepEqual(
      versions.map((row) => Number(row.version)),
      [1, 2, 3],
    );
    const logs = await rows(t.db, sql`select 1 from operation_logs where path = '/api/admin/settings/withdraw' and method = 'PUT'`);
    assert.equal(logs.length, 2);
  });

  test('every field is required and validated; nothing is stored on a 422', async () => {
    const t = ctx();
    const admin = await t.withRole('super-admin');
    const missing = await admin.client.put('/api/admin/settings/referral', { bonus: 1 });
    assert.equal(missing.status, 422);
    assert.deepEqual(Object.keys((missing.json as { errors: object }).errors), ['topped_up_bonus', 'topped_up_bonus_rate']);
    const bad = await admin.client.put('/api/admin/settings/referral', { bonus: -1, topped_up_bonus: 1.234, topped_up_bonus_rate: 100.5 });
    assert.equal(bad.status, 422);
    assert.deepEqual((bad.json as { errors: object }).errors, {
      bonus: ['The bonus field must be at least 0.'],
      topped_up_bonus: ['The topped up bonus field must have 0-2 decimal places.'],
      topped_up_bonus_rate: ['The topped up bonus rate field must not be greater than 100.'],
    });
    const options = await admin.client.put('/api/admin/settings/topup', {
      gift_rate_first_time: 0,
      gift_rate: 0,
      options: [
        { value: 10, rate: 5 },
        { value: '10.00', rate: 6 },
        { value: 0, rate: 101 },
      ],
    });
    assert.equal(options.status, 422);
    assert.deepEqual((options.json as { errors: object }).errors, {
      'options.1.value': ['The options.1.value field has a duplicate value.'],
      'options.2.value': ['The options.2.value field must be at least 0.01.'],
      'options.2.rate': ['The options.2.rate field must not be greater than 100.'],
    });
    const count = await admin.client.put('/api/admin/settings/withdraw', {
      min_amount_for_player: 0,
      min_amount_for_partner: 0,
      fee_rate: 0,
      total_bet: 0,
      referred_users_count: 1.5,
      total_topped_up: 0,
    });
    assert.deepEqual((count.json as { errors: object }).errors, {
      referred_users_count: ['The referred users count field must be an integer.'],
    });
    const versions = await rows(t.db, sql`select 1 from settings where name in ('referral', 'topup')`);
    assert.equal(versions.length, 2);
  });

  test('settings need settings.view to read and settings.manage to change', async () => {
    const t = ctx();
    const player = await t.player();
    assert.equal((await player.client.get('/api/admin/settings/topup')).status, 403);
    assert.equal(
      (await player.client.put('/api/admin/settings/topup', { gift_rate_first_time: 0, gift_rate: 0, options: [] })).status,
      403,
    );
    assert.equal((await t.client().get('/api/admin/settings/topup')).status, 401);
    const admin = await t.withRole('admin');
    assert.equal((await admin.client.get('/api/admin/settings/topup')).status, 200);
  });
});
