import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useApp } from '../helpers/app.ts';
import { rows } from '../../src/platform/db/client.ts';
import { assertNoContent, sql, UNAUTHENTICATED } from './support.ts';

/** Every route that needs a signed-in user, with a body that would otherwise be valid enough. */
const AUTH_ROUTES: [string, string][] = [
  ['GET', '/api/user'],
  ['POST', '/api/logout'],
  ['GET', '/api/user/confirmed-password-status'],
  ['POST', '/api/user/confirm-password'],
  ['POST', '/api/user/two-factor-authentication'],
  ['DELETE', '/api/user/two-factor-authentication'],
  ['GET', '/api/user/two-factor-qr-code'],
  ['GET', '/api/user/two-factor-secret-key'],
  ['POST', '/api/user/confirmed-two-factor-authentication'],
  ['GET', '/api/user/two-factor-recovery-codes'],
  ['POST', '/api/user/two-factor-recovery-codes'],
  ['PUT', '/api/user/password'],
  ['PUT', '/api/user/profile-information'],
];

const STATE_CHANGING: [string, string][] = [
  ['POST', '/api/login'],
  ['POST', '/api/two-factor-challenge'],
  ['POST', '/api/register'],
  ['POST', '/api/forgot-password'],
  ['POST', '/api/reset-password'],
  ...AUTH_ROUTES.filter(([method]) => method !== 'GET'),
];

const CSRF = { message: 'CSRF token mismatch.' };

describe('access checks and CSRF', () => {
  const ctx = useApp();

  test('every account route needing a user answers 401 "Unauthenticated." to a guest', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const [method, url] of AUTH_ROUTES) {
      const res = await client.request(method, url, method === 'GET' ? undefined : {});
      assert.equal(res.status, 401, `${method} ${url}`);
      assert.deepEqual(res.json, UNAUTHENTICATED);
    }
  });

  test('every state-changing account route refuses a missing, wrong or other session’s token with 419', async () => {
    const { client } = await ctx().player();
    const other = ctx().client();
    await other.csrf();
    for (const [method, url] of STATE_CHANGING) {
      for (const token of ['', 'wrong-token', other.xsrf!]) {
        const res = await client.request(method, url, {}, { 'x-xsrf-token': token });
        assert.equal(res.status, 419, `${method} ${url} with "${token}"`);
        assert.deepEqual(res.json, CSRF);
      }
    }
    assert.equal((await client.get('/api/user')).status, 200);
  });

  test('without any session cookie a state-changing request is a 419', async () => {
    const client = ctx().client();
    const res = await client.post('/api/login', { email: 'a@b.co', password: 'x' }, { 'x-xsrf-token': 'anything' });
    assert.equal(res.status, 419);
    assert.deepEqual(res.json, CSRF);
  });

  test('the token is accepted from X-XSRF-TOKEN, X-CSRF-TOKEN or a _token body field', async () => {
    const viaCsrfHeader = await ctx().player();
    const token = viaCsrfHeader.client.xsrf!;
    assertNoContent(await viaCsrfHeader.client.post('/api/logout', {}, { 'x-xsrf-token': '', 'x-csrf-token': token }));
    const viaBody = await ctx().player();
    assertNoContent(await viaBody.client.post('/api/logout', { _token: viaBody.client.xsrf }, { 'x-xsrf-token': '' }));
  });

  test('CSRF is checked before sign-in: a guest without a token gets 419, not 401', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const [method, url] of AUTH_ROUTES.filter(([m]) => m !== 'GET')) {
      assert.equal((await client.request(method, url, {}, { 'x-xsrf-token': '' })).status, 419, `${method} ${url}`);
    }
  });

  test('password confirmation (423) is checked before validation (422)', async () => {
    const { client } = await ctx().player();
    const res = await client.post('/api/user/confirmed-two-factor-authentication', { code: 123456 });
    assert.equal(res.status, 423);
  });

  test('GET requests need no token, and csrf-cookie answers the same to a signed-in user', async () => {
    const { client } = await ctx().player();
    const before = client.jar.get('gp_session');
    const res = await client.csrf();
    assertNoContent(res);
    assert.equal(client.jar.get('gp_session'), before);
    assert.equal((await client.get('/api/user', { 'x-xsrf-token': '' })).status, 200);
  });

  test('the session cookie and the XSRF-TOKEN cookie carry the contract’s attributes', async () => {
    const res = await ctx().client().csrf();
    const session = res.cookies.find((c) => c.name === 'gp_session')!;
    const xsrf = res.cookies.find((c) => c.name === 'XSRF-TOKEN')!;
    assert.match(session.value, /^[A-Za-z0-9]{40}$/);
    assert.match(xsrf.value, /^[A-Za-z0-9]{40}$/);
    for (const cookie of [session, xsrf]) {
      assert.equal(cookie.attributes.samesite, 'Lax');
      assert.equal(cookie.attributes.path, '/');
      assert.equal(cookie.attributes.domain, undefined);
      assert.equal(cookie.attributes.secure, undefined);
    }
    assert.equal(session.attributes.httponly, true);
    assert.equal(xsrf.attributes.httponly, undefined);
  });

  test('the session id is never stored in the clear', async () => {
    const client = ctx().client();
    await client.csrf();
    const id = client.jar.get('gp_session')!;
    const stored = await rows<{ id_hash: string }>(ctx().db, sql`select id_hash from sessions`);
    assert.ok(stored.length > 0);
    assert.ok(stored.every((row) => row.id_hash !== id && /^[0-9a-f]{64}$/.test(row.id_hash)));
  });
});
