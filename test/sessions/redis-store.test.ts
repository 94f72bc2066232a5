import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { UserIdentity } from '../../src/modules/users/identity.ts';
import { randomAlphanumeric, sha256 } from '../../src/platform/crypto.ts';
import { one } from '../../src/platform/db/client.ts';
import { buildApp } from '../../src/app.ts';
import { RedisSessionStore } from '../../src/platform/session/redis-store.ts';
import { enableConfirmedTwoFactor, pendingLogin } from '../auth/support.ts';
import { Client, currentTotp, uniqueEmail, useApp } from '../helpers/app.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/7';

describe('sessions and rate limits in Redis (REDIS_URL)', () => {
  const ctx = useApp({ REDIS_URL });

  test('a session started on one instance is signed in on another instance sharing Redis', async () => {
    const { client } = await ctx().player();
    const redis = new Redis(REDIS_URL);
    const stored = await redis.exists(`croupier:session:${sha256(client.jar.get('gp_session')!)}`);
    await redis.quit();
    assert.equal(stored, 1, 'the session is in Redis');
    assert.equal((await one<{ count: number }>(ctx().db, sql`select count(*)::int as count from sessions`))!.count, 0);
    const second = await buildApp(ctx().config, { database: ctx().database.database, hashing: { memoryCost: 1024, timeCost: 1 } });
    try {
      const elsewhere = new Client(second);
      for (const [name, value] of client.jar) elsewhere.jar.set(name, value);
      assert.equal((await elsewhere.get('/api/user')).status, 200);
      assert.equal((await elsewhere.post('/api/logout', {})).status, 204);
      assert.equal((await client.get('/api/user')).status, 401);
    } finally {
      await second.close();
    }
  });

  test('a session written again (password confirmed) is still held under its digest alone, never its id', async () => {
    const { client, password } = await ctx().player();
    assert.equal((await client.post('/api/user/confirm-password', { password })).status, 201);
    const id = client.jar.get('gp_session')!;
    const redis = new Redis(REDIS_URL);
    const stored = await redis.get(`croupier:session:${sha256(id)}`);
    await redis.quit();
    assert.ok(stored !== null && stored.includes('"passwordConfirmedAt":"'), 'the update is stored');
    assert.ok(!stored.includes(id), 'the session id is not in Redis');
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('a password change ends the other sessions and keeps this one', async () => {
    const { client, email, password } = await ctx().player();
    const other = ctx().client();
    await other.csrf();
    assert.equal((await other.post('/api/login', { email, password })).status, 200);
    const res = await client.put('/api/user/password', {
      current_password: password,
      password: 'new-password',
      password_confirmation: 'new-password',
    });
    assert.equal(res.status, 200);
    assert.equal((await other.get('/api/user')).status, 401);
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('five failed logins lock the e-mail out for the sixth', async () => {
    const email = uniqueEmail('redis-lock');
    const client = ctx().client({ ip: '10.7.7.7' });
    await client.csrf();
    for (let i = 0; i < 5; i++) assert.equal((await client.post('/api/login', { email, password: 'wrong-password' })).status, 422);
    const locked = await client.post('/api/login', { email, password: 'wrong-password' });
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers['retry-after']) >= 1);
  });

  test('a login waiting for its challenge ends with a password change', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const pending = await pendingLogin(ctx(), user);
    const changed = await user.client.put('/api/user/password', {
      current_password: user.password,
      password: 'changed-password',
      password_confirmation: 'changed-password',
    });
    assert.equal(changed.status, 200);
    assert.equal((await pending.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) })).status, 419);
  });

  test('a disabled user loses the session held in Redis at once', async () => {
    const { client, id } = await ctx().player();
    await ctx().db.execute(sql`update users set status = 0 where id = ${id}`);
    await ctx().changedOutside();
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('a touch that read the session before its end was brought forward does not undo it', async () => {
    const { id: userId } = await ctx().player();
    const plain = new Redis(REDIS_URL);
    const racing = new Redis(REDIS_URL);
    const identity = new UserIdentity();
    const other = new RedisSessionStore(plain, ctx().db, identity, 1800);
    // This instance's touch reads the session, then the other instance shortens it, then the touch writes.
    let shortenFirst = true;
    const get = racing.get.bind(racing);
    racing.get = async (key: string) => {
      const raw = await get(key);
      if (shortenFirst) {
        shortenFirst = false;
        await other.shortenForUser(userId, () => end);
      }
      return raw;
    };
    const store = new RedisSessionStore(racing, ctx().db, identity, 1800);
    const id = randomAlphanumeric(40);
    const signedInAt = new Date();
    const end = new Date(signedInAt.getTime() + 60_000);
    const blank = { csrfToken: 'x', pendingUserId: null, pendingRemember: false, pendingAt: null, passwordConfirmedAt: null };
    try {
      await other.create(id, { ...blank, userId, persistent: false, ip: null, userAgent: null, endsAt: null, signedInAt });
      await store.touch(id);
      const loaded = await other.load(id, 1800);
      assert.equal(loaded?.session.endsAt?.getTime(), end.getTime(), 'the shortened end holds');
      assert.ok(!shortenFirst, 'the race happened');
    } finally {
      await plain.quit();
      await racing.quit();
    }
  });
});
