import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { currentTotp, useApp, type Client } from '../helpers/app.ts';
import {
  assertEmptyString,
  assertNoContent,
  cookie,
  enableConfirmedTwoFactor,
  exec,
  login,
  pendingLogin,
  REMEMBER_COOKIE,
  sql,
} from './support.ts';

const REMEMBER_MAX_AGE = String(400 * 24 * 60 * 60);
const PERSISTENT_SESSION_MAX_AGE = String(30 * 24 * 60 * 60);

/** A browser that only kept the remember-me cookie (the session cookie is gone). */
function onlyRemember(client: Client): void {
  client.jar.delete('gp_session');
  client.jar.delete('XSRF-TOKEN');
}

describe('remember me', () => {
  const ctx = useApp();

  test('remember:true sets an HttpOnly remember cookie for 400 days and a 30-day session cookie', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    const res = await login(client, email, password, { remember: true });
    assert.deepEqual(res.json, { two_factor: false });
    const remember = cookie(res, REMEMBER_COOKIE);
    assert.ok(remember, 'remember cookie set');
    assert.equal(remember.attributes.httponly, true);
    assert.equal(remember.attributes['max-age'], REMEMBER_MAX_AGE);
    assert.equal(remember.attributes.path, '/');
    assert.equal(remember.attributes.samesite, 'Lax');
    assert.doesNotMatch(remember.value, new RegExp(password));
    const session = cookie(res, 'gp_session')!;
    assert.equal(session.attributes['max-age'], PERSISTENT_SESSION_MAX_AGE);
    assert.equal(session.attributes.httponly, true);
    assert.equal(cookie(res, 'XSRF-TOKEN')!.attributes['max-age'], PERSISTENT_SESSION_MAX_AGE);
  });

  test('without remember there is no remember cookie and the session cookie ends with the browser', async () => {
    const { email, password } = await ctx().player();
    for (const remember of [undefined, false, 0, '0', 'false', 'off', 'nope', {}, [1], 2]) {
      const client = ctx().client();
      const res = await login(client, email, password, remember === undefined ? {} : { remember });
      assert.equal(res.status, 200);
      assert.equal(cookie(res, REMEMBER_COOKIE), undefined, `remember: ${JSON.stringify(remember)}`);
      const session = cookie(res, 'gp_session')!;
      assert.equal(session.attributes['max-age'], undefined);
      assert.equal(session.attributes.expires, undefined);
    }
  });

  test('Laravel truthy values of remember all count', async () => {
    const { email, password } = await ctx().player();
    for (const remember of [true, 1, '1', 'true', 'on', 'yes']) {
      const res = await login(ctx().client(), email, password, { remember });
      assert.ok(cookie(res, REMEMBER_COOKIE), `remember: ${String(remember)}`);
    }
  });

  test('with the session cookie gone, /api/user signs in again on a new session with a new XSRF-TOKEN', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    await login(client, email, password, { remember: true });
    const old = { session: client.jar.get('gp_session'), xsrf: client.xsrf };
    onlyRemember(client);
    const me = await client.get('/api/user');
    assert.equal(me.status, 200);
    assert.equal((me.json as { email: string }).email, email);
    const session = cookie(me, 'gp_session');
    assert.ok(session && session.value !== old.session);
    assert.equal(session.attributes['max-age'], PERSISTENT_SESSION_MAX_AGE);
    const xsrf = cookie(me, 'XSRF-TOKEN');
    assert.ok(xsrf && xsrf.value !== old.xsrf);
    // The revived session is a normal signed-in session: state-changing calls work with the new token.
    assertNoContent(await client.post('/api/logout', {}));
  });

  test('an idle-expired session is revived by the remember cookie', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    await login(client, email, password, { remember: true });
    const old = client.jar.get('gp_session');
    await exec(ctx(), sql`update sessions set last_activity = now() - interval '1 day'`);
    await ctx().changedOutside();
    const me = await client.get('/api/user');
    assert.equal(me.status, 200);
    assert.notEqual(client.jar.get('gp_session'), old);
    // Without a remember cookie the same expiry is a 401.
    const plain = await ctx().player();
    await exec(ctx(), sql`update sessions set last_activity = now() - interval '1 day'`);
    await ctx().changedOutside();
    assert.equal((await plain.client.get('/api/user')).status, 401);
  });

  test('logout clears the remember cookie and voids it everywhere', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    await login(client, email, password, { remember: true });
    const remembered = client.jar.get(REMEMBER_COOKIE)!;
    const elsewhere = ctx().client();
    await login(elsewhere, email, password, { remember: true });
    const res = await client.post('/api/logout', {});
    assertNoContent(res);
    const cleared = cookie(res, REMEMBER_COOKIE);
    assert.ok(cleared, 'a deleting cookie is sent');
    assert.ok(cleared.value === '' || cleared.attributes['max-age'] === '0' || Date.parse(String(cleared.attributes.expires)) < Date.now());
    assert.equal(client.jar.get(REMEMBER_COOKIE), undefined);

    const replay = ctx().client();
    replay.jar.set(REMEMBER_COOKIE, remembered);
    assert.equal((await replay.get('/api/user')).status, 401);
    onlyRemember(elsewhere);
    assert.equal((await elsewhere.get('/api/user')).status, 401);
  });

  test('a forged or malformed remember cookie signs nobody in and is cleared', async () => {
    const { id } = await ctx().player();
    for (const value of [`${id}|${'0'.repeat(64)}`, 'garbage', `${id}|`, '1|2|3']) {
      const client = ctx().client();
      client.jar.set(REMEMBER_COOKIE, value);
      const res = await client.get('/api/user');
      assert.equal(res.status, 401, value);
      assert.ok(cookie(res, REMEMBER_COOKIE), 'the bad cookie is deleted');
      assert.equal(client.jar.get(REMEMBER_COOKIE), undefined);
    }
  });

  test('the remember cookie of a disabled user signs nobody in', async () => {
    const { email, password, id } = await ctx().player();
    const client = ctx().client();
    await login(client, email, password, { remember: true });
    onlyRemember(client);
    await exec(ctx(), sql`update users set status = 0 where id = ${id}`);
    await ctx().changedOutside();
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('the two-factor challenge keeps the remember choice made at login', async () => {
    const user = await ctx().player();
    const secret = await enableConfirmedTwoFactor(user);
    const remembered = await pendingLogin(ctx(), user, { remember: true });
    const res = await remembered.post('/api/two-factor-challenge', { code: currentTotp(secret, 1) });
    assertNoContent(res);
    const remember = cookie(res, REMEMBER_COOKIE);
    assert.ok(remember);
    assert.equal(remember.attributes['max-age'], REMEMBER_MAX_AGE);
    onlyRemember(remembered);
    assert.equal((await remembered.get('/api/user')).status, 200);

    const other = await ctx().player();
    const otherSecret = await enableConfirmedTwoFactor(other);
    const forgotten = await pendingLogin(ctx(), other, { remember: false });
    const plain = await forgotten.post('/api/two-factor-challenge', { code: currentTotp(otherSecret, 1) });
    assertNoContent(plain);
    assert.equal(cookie(plain, REMEMBER_COOKIE), undefined);
  });

  test('the login step of a two-factor user sets no remember cookie yet', async () => {
    const user = await ctx().player();
    await enableConfirmedTwoFactor(user);
    const res = await login(ctx().client(), user.email, user.password, { remember: true });
    assert.deepEqual(res.json, { two_factor: true });
    assert.equal(cookie(res, REMEMBER_COOKIE), undefined);
  });

  test('a password change voids other browsers’ remember cookies and renews this one', async () => {
    const { email, password } = await ctx().player();
    const here = ctx().client();
    await login(here, email, password, { remember: true });
    const there = ctx().client();
    await login(there, email, password, { remember: true });
    const res = await here.put('/api/user/password', {
      current_password: password,
      password: 'new-password',
      password_confirmation: 'new-password',
    });
    assertEmptyString(res);
    assert.ok(cookie(res, REMEMBER_COOKIE), 'this browser gets a fresh remember cookie');
    onlyRemember(there);
    assert.equal((await there.get('/api/user')).status, 401);
    onlyRemember(here);
    assert.equal((await here.get('/api/user')).status, 200);
  });
});
