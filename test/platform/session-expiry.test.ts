import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rows, sql } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';

describe('idle session expiry (SESSION_LIFETIME_MIN=1)', () => {
  const ctx = useApp({ SESSION_LIFETIME_MIN: '1' });

  async function idle(seconds: number): Promise<void> {
    await ctx().db.execute(sql`update sessions set last_activity = now() - make_interval(secs => ${seconds})`);
    await ctx().changedOutside();
  }

  test('a session idle for longer than the lifetime is gone: 401, and its XSRF token no longer works', async () => {
    const { client } = await ctx().player();
    assert.equal((await client.get('/api/user')).status, 200);
    await idle(61);
    const res = await client.get('/api/user');
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { message: 'Unauthenticated.' });
    assert.equal((await client.post('/api/logout', {})).status, 419);
    // A new csrf-cookie call starts a fresh guest session.
    await client.csrf();
    assert.equal((await client.post('/api/logout', {})).status, 401);
  });

  test('activity keeps a session alive: a request moves its idle clock', async () => {
    const { client } = await ctx().player();
    await idle(50);
    assert.equal((await client.get('/api/user')).status, 200);
    const [row] = await rows<{ idle: number }>(
      ctx().db,
      sql`select extract(epoch from now() - max(last_activity))::float as idle from sessions`,
    );
    assert.ok(row!.idle < 10, `idle ${row!.idle}`);
    await idle(50);
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('the session cookie is a browser-session cookie, renewed on activity', async () => {
    const { client } = await ctx().player();
    await idle(30);
    const res = await client.get('/api/user');
    assert.equal(res.status, 200);
    const cookie = res.cookies.find((c) => c.name === 'gp_session');
    if (cookie !== undefined) assert.equal(cookie.attributes['max-age'], undefined);
  });
});
