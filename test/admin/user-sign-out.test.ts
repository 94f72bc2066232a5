import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REMEMBER_COOKIE, login } from '../auth/support.ts';
import { demoDriver, send } from '../games/helpers.ts';
import { betAt, seat } from '../games/kit.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf } from '../wallet/helpers.ts';
import { countLogs, lastLog, userWithPermissions } from './support.ts';

describe('POST /api/admin/users/:user/sign-out', () => {
  const ctx = useApp();

  test('signs the player out everywhere: sessions, remember-me cookies and open game sessions; logged', async () => {
    const t = ctx();
    const table = await seat(t, demoDriver);
    const remembered = t.client();
    assert.equal((await login(remembered, table.player.email, table.player.password, { remember: true })).status, 200);
    assert.ok(remembered.jar.has(REMEMBER_COOKIE));
    const admin = await userWithPermissions(t, ['users.manage']);
    const logs = await countLogs(t);

    const res = await admin.client.post(`/api/admin/users/${table.player.id}/sign-out`);
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');

    assert.equal((await table.player.client.get('/api/user')).status, 401, 'the old session cookie');
    remembered.jar.delete('gp_session');
    remembered.jar.delete('XSRF-TOKEN');
    assert.equal((await remembered.get('/api/user')).status, 401, 'the remember-me cookie no longer revives');
    const bet = await send(t, demoDriver, table.provider, betAt(table, 100n));
    assert.equal(bet.answer?.status, demoDriver.word('TOKEN_EXPIRED'), bet.res.text);
    assert.equal(await balanceOf(t.db, table.player.id), 10_000n);

    assert.equal(await countLogs(t), logs + 1);
    const log = await lastLog(t);
    assert.deepEqual([Number(log.user_id), log.method, log.path], [admin.id, 'POST', `/api/admin/users/${table.player.id}/sign-out`]);
    assert.equal((await admin.client.get('/api/user')).status, 200, 'the staff member stays signed in');

    // The player signs in again as before.
    const again = t.client();
    assert.equal((await login(again, table.player.email, table.player.password)).status, 200);
    assert.equal((await again.get('/api/user')).status, 200);
  });

  test('a staff member may sign themselves out: their own session ends too', async () => {
    const admin = await userWithPermissions(ctx(), ['users.manage']);
    assert.equal((await admin.client.post(`/api/admin/users/${admin.id}/sign-out`)).status, 204);
    assert.equal((await admin.client.get('/api/user')).status, 401);
  });

  test('an unknown user is 404; without users.manage 403 and nothing ends; only a super-admin signs one out', async () => {
    const t = ctx();
    const admin = await userWithPermissions(t, ['users.manage']);
    assert.equal((await admin.client.post('/api/admin/users/999999999/sign-out')).status, 404);
    const player = await t.player();
    const viewer = await userWithPermissions(t, ['users.view']);
    assert.equal((await viewer.client.post(`/api/admin/users/${player.id}/sign-out`)).status, 403);
    assert.equal((await player.client.post(`/api/admin/users/${player.id}/sign-out`)).status, 403);
    assert.equal((await player.client.get('/api/user')).status, 200, 'still signed in');
    const root = await t.withRole('super-admin');
    const logs = await countLogs(t);
    assert.equal((await admin.client.post(`/api/admin/users/${root.id}/sign-out`)).status, 403);
    assert.equal(await countLogs(t), logs, 'a refusal leaves no log row');
    assert.equal((await root.client.get('/api/user')).status, 200);
  });

  test('the route is in the OpenAPI document under Admin: users', async () => {
    const doc = (await ctx().client().get('/docs/json')).json as { paths: Record<string, Record<string, { tags: string[] }>> };
    assert.deepEqual(doc.paths['/api/admin/users/{user}/sign-out']?.post?.tags, ['Admin: users']);
  });
});
