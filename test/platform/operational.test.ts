import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { testConfig, useApp } from '../helpers/app.ts';

describe('operational pages', () => {
  const ctx = useApp();

  test('/health answers 200 {"status":"ok"} and /ready 200 while the database answers', async () => {
    const client = ctx().client();
    const health = await client.get('/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: 'ok' });
    const ready = await client.get('/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json, { status: 'ok' });
    // Probes carry no cookies and start no sessions.
    assert.equal(health.cookies.length + ready.cookies.length, 0);
  });

  test('/docs/json is an OpenAPI 3 document listing every account route with its responses', async () => {
    const res = await ctx().client().get('/docs/json');
    assert.equal(res.status, 200);
    const doc = res.json as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    assert.match(doc.openapi, /^3\./);
    const expected: [string, string, string][] = [
      ['/api/csrf-cookie', 'get', '204'],
      ['/api/login', 'post', '200'],
      ['/api/two-factor-challenge', 'post', '204'],
      ['/api/user', 'get', '200'],
      ['/api/register', 'post', '201'],
      ['/api/forgot-password', 'post', '200'],
      ['/api/reset-password', 'post', '200'],
      ['/api/logout', 'post', '204'],
      ['/api/user/confirmed-password-status', 'get', '200'],
      ['/api/user/confirm-password', 'post', '201'],
      ['/api/user/two-factor-authentication', 'post', '200'],
      ['/api/user/two-factor-authentication', 'delete', '200'],
      ['/api/user/two-factor-qr-code', 'get', '200'],
      ['/api/user/two-factor-secret-key', 'get', '200'],
      ['/api/user/confirmed-two-factor-authentication', 'post', '200'],
      ['/api/user/two-factor-recovery-codes', 'get', '200'],
      ['/api/user/two-factor-recovery-codes', 'post', '200'],
      ['/api/user/password', 'put', '200'],
      ['/api/user/profile-information', 'put', '200'],
    ];
    for (const [path, method, status] of expected) {
      const operation = doc.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} documented`);
      assert.ok(operation.responses[status], `${method.toUpperCase()} ${path} documents ${status}`);
      if (path !== '/api/csrf-cookie') assert.ok(operation.responses['422'] ?? operation.responses['401'], `${path} documents its errors`);
    }
  });

  test('/docs serves the OpenAPI UI', async () => {
    const client = ctx().client();
    let res = await client.get('/docs');
    if (res.status === 302) res = await client.get(String(res.headers.location));
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
  });
});

describe('readiness without a database', () => {
  test('/ready answers 503 when the database does not answer, /health stays 200', async () => {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: '', inMemory: true });
    await migrate(database);
    const app = await buildApp(testConfig(), { database, hashing: { memoryCost: 1024, timeCost: 1 } });
    await app.ready();
    try {
      await database.close();
      const ready = await app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ready.statusCode, 503);
      assert.deepEqual(ready.json(), { message: 'Service Unavailable.' });
      assert.ok(Number(ready.headers['retry-after']) > 0, 'Retry-After');
      assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
