import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hash } from '@node-rs/bcrypt';
import { rows, sql } from '../../src/platform/db/client.ts';
import { uniqueEmail, useApp } from '../helpers/app.ts';

describe('login', () => {
  const ctx = useApp();

  test('csrf-cookie answers 204 with an empty body and sets the session and XSRF cookies', async () => {
    const client = ctx().client();
    const res = await client.csrf();
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    const session = res.cookies.find((c) => c.name === 'gp_session');
    const xsrf = res.cookies.find((c) => c.name === 'XSRF-TOKEN');
    assert.ok(session && xsrf);
    assert.equal(session.attributes.httponly, true);
    assert.equal(xsrf.attributes.httponly, undefined);
    assert.equal(session.attributes.samesite, 'Lax');
    assert.equal(session.attributes.path, '/');
    assert.equal(session.attributes.domain, undefined);
    assert.equal(session.attributes.secure, undefined);
  });

  test('a correct password signs in with two_factor false and regenerates both cookies', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    const before = { session: client.jar.get('gp_session'), xsrf: client.xsrf };
    const res = await client.post('/api/login', { email, password });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { two_factor: false });
    assert.notEqual(client.jar.get('gp_session'), before.session);
    assert.notEqual(client.xsrf, before.xsrf);
    const me = await client.get('/api/user');
    assert.equal(me.status, 200);
    assert.equal((me.json as { email: string }).email, email);
    // The pre-login token is dead.
    const stale = await client.post('/api/logout', {}, { 'x-xsrf-token': before.xsrf! });
    assert.equal(stale.status, 419);
  });

  test('a wrong password is a 422 on email and leaves the client a guest', async () => {
    const { email } = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/login', { email, password: 'wrong-password' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'These credentials do not match our records.',
      errors: { email: ['These credentials do not match our records.'] },
    });
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('an empty login body lists both required fields', async () => {
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/login', {});
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The email field is required. (and 1 more error)',
      errors: { email: ['The email field is required.'], password: ['The password field is required.'] },
    });
  });

  test('login without the XSRF header is refused with 419', async () => {
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/login', { email: 'a@b.c', password: 'x' }, { 'x-xsrf-token': '' });
    assert.equal(res.status, 419);
    assert.deepEqual(res.json, { message: 'CSRF token mismatch.' });
  });

  test('the sixth attempt after five failures is locked out, even with the right password', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client({ ip: '10.9.9.9' });
    await client.csrf();
    for (let i = 0; i < 5; i++) assert.equal((await client.post('/api/login', { email, password: 'nope-nope' })).status, 422);
    const res = await client.post('/api/login', { email: email.toUpperCase(), password });
    assert.equal(res.status, 429);
    const body = res.json as { message: string; errors: { email: string[] } };
    const match = /^Too many login attempts\. Please try again in (\d+) seconds\.$/.exec(body.errors.email[0]!);
    assert.ok(match, body.errors.email[0]);
    assert.deepEqual(Object.keys(body.errors), ['email']);
    assert.equal(body.message, body.errors.email[0]);
    assert.equal(res.headers['retry-after'], match[1]);
    assert.ok(Number(match[1]) >= 1 && Number(match[1]) <= 60);
  });

  test('look-alike Unicode spellings of an e-mail share the lockout', async () => {
    const client = ctx().client({ ip: '10.9.9.10' });
    await client.csrf();
    for (let i = 0; i < 5; i++) await client.post('/api/login', { email: 'test@laravel.com', password: 'nope-nope' });
    for (const email of ['ⓉⒺⓈⓉ@ⓁⒶⓇⒶⓋⒺⓁ.ⒸⓄⓂ', 'ⓣⓔⓢⓣ@ⓛⓐⓡⓐⓥⓔⓛ.ⓒⓞⓜ']) {
      assert.equal((await client.post('/api/login', { email, password: 'secret' })).status, 429);
    }
  });

  test('logout answers 204, rotates the cookies and leaves a guest', async () => {
    const { client } = await ctx().player();
    const before = client.xsrf;
    const res = await client.post('/api/logout', {});
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.notEqual(client.xsrf, before);
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('a guest logging out gets 401 after passing the CSRF check', async () => {
    const client = ctx().client();
    await client.csrf();
    assert.deepEqual((await client.post('/api/logout', {})).json, { message: 'Unauthenticated.' });
    const noToken = await client.post('/api/logout', {}, { 'x-xsrf-token': '' });
    assert.equal(noToken.status, 419);
  });

  test('registration signs in and the user record has no secrets', async () => {
    const client = ctx().client();
    await client.csrf();
    const email = uniqueEmail('New');
    const res = await client.post('/api/register', {
      name: ' Ann ',
      email,
      password: 'password',
      password_confirmation: 'password',
      agreement: true,
    });
    assert.equal(res.status, 201);
    assert.equal(res.text, '""');
    assert.match(String(res.headers['content-type']), /application\/json/);
    const me = await client.get('/api/user');
    const user = me.json as Record<string, unknown>;
    assert.deepEqual(Object.keys(user).sort(), [
      'created_at',
      'email',
      'email_verified_at',
      'id',
      'is_partner',
      'name',
      'ref',
      'roles',
      'status',
      'two_factor_enabled',
      'updated_at',
    ]);
    assert.equal(user.name, 'Ann');
    assert.equal(user.email, email.toLowerCase());
    assert.deepEqual(user.roles, ['player']);
    assert.equal(user.ref, 0);
  });
});

describe('login rules', () => {
  const ctx = useApp();

  test('logging in while signed in signs in again: the old session ends', async () => {
    const first = await ctx().player();
    const second = await ctx().player();
    const oldSession = first.client.jar.get('gp_session')!;
    const res = await first.client.post('/api/login', { email: second.email, password: second.password });
    assert.deepEqual(res.json, { two_factor: false });
    assert.notEqual(first.client.jar.get('gp_session'), oldSession);
    assert.equal(((await first.client.get('/api/user')).json as { email: string }).email, second.email);
    const stale = ctx().client();
    stale.jar.set('gp_session', oldSession);
    assert.equal((await stale.get('/api/user')).status, 401);
  });

  test('the e-mail is matched case-insensitively and trimmed; the password is not trimmed', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    assert.deepEqual((await client.post('/api/login', { email: ` ${email.toUpperCase()} `, password })).json, { two_factor: false });
    const spaced = ctx().client();
    await spaced.csrf();
    assert.equal((await spaced.post('/api/login', { email, password: ` ${password}` })).status, 422);
  });

  test('there is no e-mail format check at login, only the credentials message; non-strings are refused', async () => {
    const client = ctx().client({ ip: '10.30.0.1' });
    await client.csrf();
    const res = await client.post('/api/login', { email: 'not-an-email', password: 'whatever' });
    assert.deepEqual(res.json, {
      message: 'These credentials do not match our records.',
      errors: { email: ['These credentials do not match our records.'] },
    });
    const typed = await client.post('/api/login', { email: 12345, password: ['x'] });
    assert.deepEqual(typed.json, {
      message: 'The email field must be a string. (and 1 more error)',
      errors: { email: ['The email field must be a string.'], password: ['The password field must be a string.'] },
    });
  });

  test('a disabled account cannot sign in and its open sessions end', async () => {
    const user = await ctx().player();
    await ctx().db.execute(sql`update users set status = 0 where id = ${user.id}`);
    await ctx().changedOutside();
    assert.deepEqual((await user.client.get('/api/user')).json, { message: 'Unauthenticated.' });
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/login', { email: user.email, password: user.password });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, { message: 'This account is disabled.', errors: { email: ['This account is disabled.'] } });
    assert.equal((await client.get('/api/user')).status, 401);
    // The wrong password says nothing about the account's state.
    const wrong = await client.post('/api/login', { email: user.email, password: 'wrong-password' });
    assert.equal((wrong.json as { message: string }).message, 'These credentials do not match our records.');
  });

  test('the lockout belongs to one e-mail and IP, and a successful login clears it', async () => {
    const { email, password } = await ctx().player();
    const client = ctx().client({ ip: '10.30.0.2' });
    await client.csrf();
    for (let i = 0; i < 4; i++) await client.post('/api/login', { email, password: 'nope-nope' });
    assert.equal((await client.post('/api/login', { email, password })).status, 200);
    for (let i = 0; i < 4; i++) assert.equal((await client.post('/api/login', { email, password: 'nope-nope' })).status, 422);
    assert.equal((await client.post('/api/login', { email, password })).status, 200);
    for (let i = 0; i < 5; i++) await client.post('/api/login', { email, password: 'nope-nope' });
    assert.equal((await client.post('/api/login', { email, password })).status, 429);
    // Another address is not locked out, and the lockout answers before validation.
    const elsewhere = ctx().client({ ip: '10.30.0.3' });
    await elsewhere.csrf();
    assert.equal((await elsewhere.post('/api/login', { email, password })).status, 200);
    const noPassword = await client.post('/api/login', { email });
    assert.equal(noPassword.status, 429);
    assert.ok(Number(noPassword.headers['retry-after']) >= 1);
  });

  test('enclosed digits transliterate into the same lockout key', async () => {
    const client = ctx().client({ ip: '10.30.0.4' });
    await client.csrf();
    for (let i = 0; i < 5; i++) await client.post('/api/login', { email: 'test1043@laravel.com', password: 'nope-nope' });
    assert.equal((await client.post('/api/login', { email: 'test⑩⓸③@laravel.com', password: 'secret' })).status, 429);
  });

  test('imported bcrypt $2y$ and $2b$ hashes verify and are rehashed with argon2id', async () => {
    for (const prefix of ['$2y$', '$2b$']) {
      const { id, email } = await ctx().player();
      const legacy = (await hash('secret-from-laravel', 4)).replace(/^\$2b\$/, prefix);
      await ctx().db.execute(sql`update users set password = ${legacy} where id = ${id}`);
      const wrong = ctx().client();
      await wrong.csrf();
      assert.equal((await wrong.post('/api/login', { email, password: 'not-the-secret' })).status, 422);
      const client = ctx().client();
      await client.csrf();
      assert.deepEqual((await client.post('/api/login', { email, password: 'secret-from-laravel' })).json, { two_factor: false });
      const [row] = await rows<{ password: string }>(ctx().db, sql`select password from users where id = ${id}`);
      assert.match(row!.password, /^\$argon2id\$/);
      const again = ctx().client();
      await again.csrf();
      assert.deepEqual((await again.post('/api/login', { email, password: 'secret-from-laravel' })).json, { two_factor: false });
    }
  });

  test('GET /api/login is a 405', async () => {
    const res = await ctx().client().get('/api/login');
    assert.equal(res.status, 405);
    assert.deepEqual(res.json, { message: 'Method not allowed.' });
  });

  test('/api/user is the user itself, with ISO timestamps and the contract’s fields only', async () => {
    const { client, id, email } = await ctx().player({ name: 'Plain' });
    const me = (await client.get('/api/user')).json as Record<string, unknown>;
    assert.equal(me.id, id);
    assert.equal(me.email, email);
    assert.equal(me.name, 'Plain');
    assert.match(String(me.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(String(me.updated_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
