import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';

const REMEMBER = 'remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d';

describe('cookies behind https with a shared domain', () => {
  const ctx = useApp({
    APP_URL: 'https://api.example.com',
    SESSION_DOMAIN: '.example.com',
    SESSION_COOKIE: 'casino_session',
    FRONTEND_URL: 'https://app.example.com',
    CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
  });

  test('session, XSRF and remember cookies are Secure and carry the configured Domain and name', async () => {
    const client = ctx().client();
    const res = await client.csrf();
    const session = res.cookies.find((c) => c.name === 'casino_session');
    const xsrf = res.cookies.find((c) => c.name === 'XSRF-TOKEN');
    assert.ok(session && xsrf);
    assert.equal(
      res.cookies.find((c) => c.name === 'gp_session'),
      undefined,
    );
    for (const cookie of [session, xsrf]) {
      assert.equal(cookie.attributes.secure, true);
      assert.equal(cookie.attributes.domain, '.example.com');
      assert.equal(cookie.attributes.samesite, 'Lax');
      assert.equal(cookie.attributes.path, '/');
    }
    assert.equal(session.attributes.httponly, true);
    assert.equal(xsrf.attributes.httponly, undefined);

    const user = await ctx().player();
    const login = ctx().client();
    await login.csrf();
    const signedIn = await login.post('/api/login', { email: user.email, password: user.password, remember: true });
    const remember = signedIn.cookies.find((c) => c.name === REMEMBER)!;
    assert.equal(remember.attributes.secure, true);
    assert.equal(remember.attributes.domain, '.example.com');
    assert.equal(remember.attributes.httponly, true);
    const logout = await login.post('/api/logout', {});
    const cleared = logout.cookies.find((c) => c.name === REMEMBER)!;
    assert.equal(cleared.attributes.domain, '.example.com');
  });

  test('the session is read from the configured cookie name', async () => {
    const user = await ctx().player();
    assert.ok(user.client.jar.has('casino_session'));
    assert.equal((await user.client.get('/api/user')).status, 200);
  });

  test('every origin of CORS_ORIGINS is allowed, and only those', async () => {
    for (const origin of ['https://app.example.com', 'https://admin.example.com']) {
      const res = await ctx().client({ origin }).request('OPTIONS', '/api/login', undefined, { 'access-control-request-method': 'POST' });
      assert.equal(res.status, 204);
      assert.equal(res.headers['access-control-allow-origin'], origin);
    }
    const other = await ctx().client({ origin: 'http://localhost:5173' }).csrf();
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  test('the reset link points at FRONTEND_URL', async () => {
    const user = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    assert.equal((await client.post('/api/forgot-password', { email: user.email })).status, 200);
    const mail = await ctx().inbox.next(user.email);
    assert.match(mail.text ?? '', /https:\/\/app\.example\.com\/password-reset\/[0-9a-f]{64}\?email=/);
  });
});
