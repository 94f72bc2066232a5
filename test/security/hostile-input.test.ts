import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, test } from 'node:test';
import { useApp, type Client, type Response } from '../helpers/app.ts';

const DATA_DIR = `/tmp/croupier-hostile-test-${process.pid}`;
const UPLOAD_MAX_BYTES = 64 * 1024;

/** `{"a":{"a":…1…}}`, `levels` deep: about 50 KB at 10,000 levels. */
function nested(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

function json(client: Client, method: string, url: string, text: string): Promise<Response> {
  return client.request(method, url, text, { 'content-type': 'application/json' });
}

function assertValidation(res: Response, field: string, message: string): void {
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.json, { message, errors: { [field]: [message] } });
}

function multipartFile(size: number, boundary = 'croupier-boundary'): { body: Buffer; headers: Record<string, string> } {
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`),
    Buffer.alloc(size, 7),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('hostile input answers 4xx, never 500', () => {
  const ctx = useApp({ DATA_DIR, UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));

  test('a JSON body nested 10,000 levels deep is a 400 on every JSON route, before CSRF and sign-in', async () => {
    const guest = ctx().client();
    const admin = (await ctx().withRole('super-admin')).client;
    const body = nested(10_000);
    const answers = [
      // No session, no CSRF token: the body error still comes first.
      await json(guest, 'POST', '/api/login', body),
      await json(guest, 'POST', '/api/webhooks/payments/sandbox', body),
      await json(admin, 'POST', '/api/admin/roles', body),
      await json(admin, 'PUT', '/api/admin/roles/1', body),
      await json(admin, 'PUT', '/api/admin/settings/topup', body),
    ];
    for (const res of answers) {
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json, { message: 'The JSON body is nested too deeply.' });
    }
  });

  test('a body may nest 64 levels; one more is a 400', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const res = await json(admin, 'POST', '/api/admin/roles', `{"name": "deep-enough", "extra": ${nested(63)}}`);
    assert.equal(res.status, 201, res.text);
    const deeper = await json(admin, 'POST', '/api/admin/roles', `{"name": "one-too-deep", "extra": ${nested(64)}}`);
    assert.equal(deeper.status, 400, deeper.text);
  });

  test('a NUL in q or a text filter is a 422 on that field', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    for (const url of [
      '/api/admin/users?q=%00',
      '/api/admin/roles?q=a%00b',
      '/api/admin/permissions?q=%00',
      '/api/admin/banks?q=%00',
      '/api/admin/bank-cards?q=%00',
      '/api/admin/payment-methods?q=%00',
      '/api/admin/transactions?q=%00',
      '/api/admin/operation-logs?q=%00',
    ]) {
      assertValidation(await admin.get(url), 'q', 'The q field must not contain null bytes.');
    }
    assertValidation(await admin.get('/api/admin/users?email=a%00@b.c'), 'email', 'The email field must not contain null bytes.');
  });

  test('a NUL in a body value or key is a 422 on that field, after CSRF and sign-in', async () => {
    const guest = ctx().client();
    await guest.csrf();
    const login = await guest.post('/api/login', { email: 'a\u0000@example.com', password: 'password' });
    assertValidation(login, 'email', 'The email field must not contain null bytes.');
    const register = await guest.post('/api/register', { name: 'x', email: 'nul@example.com', password: 'pass\u0000word' });
    assertValidation(register, 'password', 'The password field must not contain null bytes.');
    const webhook = await guest.post('/api/webhooks/payments/sandbox', { payment_id: 'x\u0000', status: 'paid', amount: 1 });
    assertValidation(webhook, 'payment_id', 'The payment id field must not contain null bytes.');

    const admin = (await ctx().withRole('super-admin')).client;
    const key = await admin.post('/api/admin/roles', { name: 'nul-key', 'ke\u0000y': 1 });
    assertValidation(key, 'ke\u0000y', 'The ke\u0000y field must not contain null bytes.');
    const nested = await admin.put('/api/admin/settings/topup', { options: [{ value: 1, rate: '\u0000' }] });
    assertValidation(nested, 'options.0.rate', 'The options.0.rate field must not contain null bytes.');
    // A route that reads no body still writes it to the operation log.
    const confirm = await admin.post('/api/admin/topups/1/confirm', { note: '\u0000' });
    assertValidation(confirm, 'note', 'The note field must not contain null bytes.');

    const noCsrf = ctx().client();
    assert.equal((await noCsrf.post('/api/login', { email: 'a\u0000@example.com' })).status, 419);
    const player = await ctx().player();
    assert.equal((await player.client.post('/api/admin/roles', { name: '\u0000' })).status, 403);
  });

  test('a lone surrogate (text that is not UTF-8) in a body is a 422 on that field', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const message = 'The note field must be valid UTF-8.';
    // The operation log stores the body as jsonb, which refuses the escape.
    assertValidation(await admin.post('/api/admin/topups/1/confirm', { note: 'a\ud800' }), 'note', message);
    assertValidation(await admin.put('/api/admin/settings/withdraw', { note: '\udfff' }), 'note', message);
    // The record a path names is looked up first (docs/api.md section 3): a missing one is a 404.
    assert.equal((await admin.put('/api/admin/balances/1000', { note: '\udfff' })).status, 404);
    const key = await json(admin, 'POST', '/api/admin/roles', '{"name": "surrogate-key", "\\ud800": 1}');
    assertValidation(key, '\ud800', 'The \ud800 field must be valid UTF-8.');
    assert.equal((await admin.post('/api/admin/topups/1/confirm', { note: '😀' })).status, 404, 'a surrogate pair is fine');
  });

  test('a NUL in a path parameter names no record: 404', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    for (const url of ['/api/admin/roles/%00', '/api/admin/users/1%00', '/pay/%00', '/storage/uploads/%00']) {
      const res = await admin.get(url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.json, { message: 'Not found.' });
    }
  });

  test('an integer filter out of range is a 422, as a path id out of range is a 404', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const tooBig = 'The user id field must not be greater than 9007199254740991.';
    const notInteger = 'The user id field must be an integer.';
    for (const list of ['/api/admin/topups', '/api/admin/transactions', '/api/admin/operation-logs', '/api/admin/balances']) {
      assertValidation(await admin.get(`${list}?user_id=99999999999999999999`), 'user_id', tooBig);
      assertValidation(await admin.get(`${list}?user_id=1e400`), 'user_id', notInteger);
    }
    assertValidation(await admin.get('/api/admin/users?page=1e400'), 'page', 'The page field must be an integer.');
    assertValidation(await admin.get('/api/admin/users?per_page=-1e400'), 'per_page', 'The per page field must be an integer.');
    assertValidation(await admin.get('/api/admin/users?status=1e400'), 'status', 'The status field must be an integer.');
    assert.equal((await admin.get('/api/admin/users/99999999999999999999')).status, 404);
    assert.equal((await admin.get('/api/admin/users/1e400')).status, 404);
  });

  test('an integer in a body out of the BIGINT-safe range is a 422 on its field', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const res = await json(
      admin,
      'POST',
      '/api/admin/bank-cards',
      '{"bank_id": 99999999999999999999, "user_id": 1, "holder_name": "A", "card_number": "4111111111111111"}',
    );
    assertValidation(res, 'bank_id', 'The bank id field must not be greater than 9007199254740991.');
    const infinite = await json(admin, 'POST', '/api/admin/balances', '{"user_id": 1e400, "currency": "USD"}');
    assert.equal(infinite.status, 422, infinite.text);
    assert.deepEqual(Object.keys((infinite.json as { errors: object }).errors), ['user_id']);
  });

  test('a malformed multipart upload is a 400: no boundary, or cut before its closing boundary', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const noBoundary = await admin.post('/api/admin/upload', 'whatever', { 'content-type': 'multipart/form-data' });
    const cut = await admin.post(
      '/api/admin/upload',
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG',
      { 'content-type': 'multipart/form-data; boundary=b' },
    );
    for (const res of [noBoundary, cut]) {
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.json, { message: 'Malformed multipart body.' });
    }
  });

  test('a file over UPLOAD_MAX_BYTES is a 422 on file up to the hard limit (four times as large), a 413 beyond it', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const message = `The file field must not be greater than ${UPLOAD_MAX_BYTES / 1024} kilobytes.`;
    for (const size of [UPLOAD_MAX_BYTES + 1, 3 * UPLOAD_MAX_BYTES, 4 * UPLOAD_MAX_BYTES + 1024 * 1024 - 1024]) {
      const form = multipartFile(size);
      assertValidation(await admin.post('/api/admin/upload', form.body, form.headers), 'file', message);
    }
    const form = multipartFile(4 * UPLOAD_MAX_BYTES + 1024 * 1024);
    const huge = await admin.post('/api/admin/upload', form.body, form.headers);
    assert.equal(huge.status, 413);
    assert.deepEqual(huge.json, { message: 'The request body is too large.' });
  });

  test('the 422 for a file far over the limit reaches a client over a real connection', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    const form = multipartFile(4 * UPLOAD_MAX_BYTES + 1024 * 1024 - 1024);
    const res = await fetch(`${address}/api/admin/upload`, {
      method: 'POST',
      body: form.body,
      headers: {
        ...form.headers,
        cookie: [...admin.jar].map(([name, value]) => `${name}=${value}`).join('; '),
        'x-xsrf-token': admin.xsrf ?? '',
      },
    });
    assert.equal(res.status, 422);
    assert.deepEqual(Object.keys(((await res.json()) as { errors: object }).errors), ['file']);
  });

  test('GET /storage/ is a 404 like any unknown path, not a 405', async () => {
    const client = ctx().client();
    for (const url of ['/storage/', '/storage', '/storage//', '/api/admin/users/1/']) {
      const res = await client.get(url);
      assert.notEqual(res.status, 405, url);
      if (url.startsWith('/storage')) assert.deepEqual([res.status, res.json], [404, { message: 'Not found.' }], url);
    }
    // A known path with the wrong method is still 405.
    assert.equal((await client.request('DELETE', '/api/user/password')).status, 405);
  });

  test('a path with broken percent-encoding or an overlong parameter names no record: 404', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    for (const url of ['/api/admin/users/%ZZ', '/api/admin/users/%C0%80', `/api/admin/users/${'1'.repeat(200)}`, '/pay/%E0%A4%A']) {
      const res = await admin.get(url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.json, { message: 'Not found.' });
      assert.ok(res.headers['x-request-id'], 'every response carries X-Request-Id');
    }
  });
});
