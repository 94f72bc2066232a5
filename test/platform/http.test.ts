import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';

const FRONTEND = 'http://localhost:5173';
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOW_HEADERS = ['Content-Type', 'X-XSRF-TOKEN', 'X-CSRF-TOKEN', 'X-Requested-With', 'Accept', 'Authorization', 'Idempotency-Key'];
const EXPOSE_HEADERS = 'Retry-After, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining';

describe('HTTP platform', () => {
  const ctx = useApp();

  test('an unknown path is a JSON 404 anywhere, whatever the method', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/api/nope'],
      ['GET', '/api/user/nope'],
      ['POST', '/api/nope'],
      ['DELETE', '/nope/deeper/path'],
      ['GET', '/api'],
      ['GET', '/'],
    ] as const) {
      const res = await client.request(method, url, method === 'GET' ? undefined : {}, { 'x-xsrf-token': '' });
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.deepEqual(res.json, { message: 'Not found.' });
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
  });

  test('a wrong method on a known path is a JSON 405', async () => {
    const client = ctx().client();
    for (const [method, url] of [
      ['GET', '/api/login'],
      ['PUT', '/api/login'],
      ['DELETE', '/api/csrf-cookie'],
      ['POST', '/health'],
      ['PATCH', '/api/user/password'],
    ] as const) {
      const res = await client.request(method, url);
      assert.equal(res.status, 405, `${method} ${url}`);
      assert.deepEqual(res.json, { message: 'Method not allowed.' });
    }
  });

  test('malformed JSON is a 400 before the CSRF check', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const body of ['{"email":', '{bad json}', '[1,2', '"unterminated']) {
      const res = await client.post('/api/login', body, { 'content-type': 'application/json' });
      assert.equal(res.status, 400, body);
      assert.deepEqual(res.json, { message: 'Malformed JSON body.' });
    }
    const noToken = await client.post('/api/login', '{oops', { 'content-type': 'application/json', 'x-xsrf-token': '' });
    assert.equal(noToken.status, 400);
  });

  test('an empty JSON body or a bare scalar reads as no input', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const body of ['', '   ', 'null', '"text"', '42']) {
      const res = await client.post('/api/login', body, { 'content-type': 'application/json' });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal((res.json as { message: string }).message, 'The email field is required. (and 1 more error)');
    }
  });

  test('a body over 1 MiB is a 413 with a message, before the CSRF check', async () => {
    const client = ctx().client();
    await client.csrf();
    const big = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1024 * 1024) });
    const res = await client.post('/api/login', big, { 'content-type': 'application/json', 'x-xsrf-token': '' });
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, { message: 'The request body is too large.' });
  });

  test('a JSON body just under the limit is accepted', async () => {
    const client = ctx().client();
    await client.csrf();
    const body = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(1024 * 1024 - 100) });
    const res = await client.post('/api/login', body, { 'content-type': 'application/json' });
    assert.equal(res.status, 422);
  });

  test('a plain-text body reads as no input, and an unknown media type is a 415 in the usual shape', async () => {
    const client = ctx().client();
    await client.csrf();
    const text = await client.post('/api/login', 'email=a@b.co&password=x', { 'content-type': 'text/plain' });
    assert.equal(text.status, 422);
    assert.equal((text.json as { message: string }).message, 'The email field is required. (and 1 more error)');
    const xml = await client.post('/api/login', '<login/>', { 'content-type': 'application/xml' });
    assert.equal(xml.status, 415);
    assert.deepEqual(xml.json, { message: 'Unsupported media type.' });
  });

  test('X-Request-Id is echoed when well-formed and replaced otherwise', async () => {
    const client = ctx().client();
    for (const id of ['abc-123', 'A.b_c:d-e', 'x'.repeat(128)]) {
      assert.equal((await client.get('/health', { 'x-request-id': id })).headers['x-request-id'], id);
    }
    for (const id of ['', 'has space', 'x'.repeat(129), 'semi;colon', 'ünï']) {
      const res = await client.get('/api/nope', { 'x-request-id': id });
      const given = String(res.headers['x-request-id']);
      assert.notEqual(given, id);
      assert.match(given, /^[A-Za-z0-9._:-]{1,128}$/);
    }
    const a = String((await client.get('/health')).headers['x-request-id']);
    const b = String((await client.get('/health')).headers['x-request-id']);
    assert.notEqual(a, b);
  });

  test('every response carries an X-Request-Id, errors included', async () => {
    const client = ctx().client();
    await client.csrf();
    for (const res of [
      await client.get('/api/user'),
      await client.post('/api/login', {}, { 'x-xsrf-token': '' }),
      await client.get('/nope'),
    ]) {
      assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
    }
  });

  test('a CORS preflight from the front end answers 204 with credentials, the methods and the headers', async () => {
    const client = ctx().client();
    const res = await client.request('OPTIONS', '/api/login', undefined, {
      origin: FRONTEND,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-xsrf-token,x-requested-with',
    });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal(res.headers['access-control-allow-origin'], FRONTEND);
    assert.equal(res.headers['access-control-allow-credentials'], 'true');
    assert.equal(res.headers['access-control-allow-methods'], ALLOW_METHODS);
    const allowed = String(res.headers['access-control-allow-headers'])
      .split(',')
      .map((h) => h.trim());
    assert.deepEqual(allowed, ALLOW_HEADERS);
    assert.match(String(res.headers.vary), /Origin/);
  });

  test('a preflight works on any path the SPA may call, including ones that need a user', async () => {
    const client = ctx().client();
    for (const url of ['/api/user/password', '/api/user', '/api/two-factor-challenge']) {
      const res = await client.request('OPTIONS', url, undefined, { origin: FRONTEND, 'access-control-request-method': 'PUT' });
      assert.equal(res.status, 204, url);
      assert.equal(res.headers['access-control-allow-origin'], FRONTEND);
    }
  });

  test('normal CORS responses, errors included, allow the origin with credentials and expose the headers', async () => {
    const client = ctx().client({ origin: FRONTEND });
    const ok = await client.csrf();
    const unauthorized = await client.get('/api/user');
    const csrf = await client.post('/api/logout', {}, { 'x-xsrf-token': '' });
    for (const res of [ok, unauthorized, csrf]) {
      assert.equal(res.headers['access-control-allow-origin'], FRONTEND);
      assert.equal(res.headers['access-control-allow-credentials'], 'true');
      assert.equal(res.headers['access-control-expose-headers'], EXPOSE_HEADERS);
    }
    assert.deepEqual([ok.status, unauthorized.status, csrf.status], [204, 401, 419]);
  });

  test('a disallowed origin gets no Access-Control-Allow-Origin', async () => {
    for (const origin of ['http://evil.example', 'http://localhost:5174', 'https://localhost:5173', 'null']) {
      const client = ctx().client({ origin });
      const simple = await client.get('/api/csrf-cookie');
      assert.equal(simple.headers['access-control-allow-origin'], undefined, origin);
      const preflight = await client.request('OPTIONS', '/api/login', undefined, { 'access-control-request-method': 'POST' });
      assert.equal(preflight.headers['access-control-allow-origin'], undefined, origin);
    }
  });

  test('a request without Origin gets no CORS headers and works as usual', async () => {
    const res = await ctx().client().csrf();
    assert.equal(res.status, 204);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  test('an unexpected failure is a 500 "Server Error." with no detail', async () => {
    const { client, password, id } = await ctx().player();
    assert.equal((await client.post('/api/user/confirm-password', { password })).status, 201);
    // A secret that no longer decrypts (e.g. APP_KEY changed without re-encrypting) is such a failure.
    await ctx().db.execute(sql`update users set two_factor_secret = 'v1.broken.value.here' where id = ${id}`);
    const res = await client.get('/api/user/two-factor-secret-key');
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { message: 'Server Error.' });
    assert.match(String(res.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
  });

  test('an unexpected path shape on a parameterless route is a 404, never a stack', async () => {
    const res = await ctx().client().get('/api/user/%E0%A4%A');
    assert.ok([400, 404].includes(res.status));
    assert.doesNotMatch(res.text, /at .*\.ts:\d+/);
  });
});
