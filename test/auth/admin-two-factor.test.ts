import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { assertEmptyString, confirmPassword, enableConfirmedTwoFactor } from './support.ts';

const REQUIRED = { message: 'Two-factor authentication is required for staff.' };
/** Admin routes of several kinds: a list, a report, a change (with its CSRF token). */
const ADMIN_CALLS = [
  ['GET', '/api/admin/users'],
  ['GET', '/api/admin/reports/daily?date=2026-11-20'],
  ['GET', '/api/admin/stats?from=2026-11-20&to=2026-11-20'],
  ['POST', '/api/admin/roles'],
] as const;

describe('ADMIN_TWO_FACTOR=required', () => {
  const ctx = useApp({ ADMIN_TWO_FACTOR: 'required' });

  test('staff without confirmed two-factor get 403 on every admin route, and may still set it up', async () => {
    const admin = await ctx().withRole('super-admin');
    for (const [method, url] of ADMIN_CALLS) {
      const res = await admin.client.request(method, url, method === 'GET' ? undefined : { name: 'auditor' });
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.deepEqual(res.json, REQUIRED, `${method} ${url}`);
    }
    // The account routes stay open: the profile, and two-factor turned on but not yet confirmed.
    assert.equal((await admin.client.get('/api/user')).status, 200);
    await confirmPassword(admin.client, admin.password);
    assertEmptyString(await admin.client.post('/api/user/two-factor-authentication'));
    assert.equal((await admin.client.get('/api/user/two-factor-qr-code')).status, 200);
    assert.deepEqual((await admin.client.get('/api/admin/users')).json, REQUIRED, 'enabled but not confirmed is not enough');
  });

  test('once confirmed, the same staff member is let through', async () => {
    const admin = await ctx().withRole('super-admin');
    assert.equal((await admin.client.get('/api/admin/users')).status, 403);
    await enableConfirmedTwoFactor(admin);
    assert.equal((await admin.client.get('/api/admin/users')).status, 200);
    assert.equal((await admin.client.get('/api/admin/stats?from=2026-11-20&to=2026-11-20')).status, 200);
  });

  test('a player is told it lacks the permission, as before', async () => {
    const player = await ctx().player();
    const res = await player.client.get('/api/admin/users');
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, { message: 'This action is unauthorized.' });
  });
});

describe('ADMIN_TWO_FACTOR=off (the default)', () => {
  const ctx = useApp();

  test('staff without two-factor reach the admin routes', async () => {
    const admin = await ctx().withRole('super-admin');
    assert.equal((await admin.client.get('/api/admin/users')).status, 200);
    assert.equal((await admin.client.get('/api/admin/stats?from=2026-11-20&to=2026-11-20')).status, 200);
  });
});
