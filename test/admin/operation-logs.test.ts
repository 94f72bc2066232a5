import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { sql } from 'drizzle-orm';
import { loggedTransaction, operationEntry } from '../../src/platform/admin/operation-log.ts';
import { redactPayload } from '../../src/platform/admin/redact.ts';
import type { AuthUser } from '../../src/platform/auth/identity.ts';
import { one } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { countLogs, data, lastLog, page, type OperationLog } from './support.ts';

const bank = (code: string, extra: Record<string, unknown> = {}) => ({ name: `Bank ${code}`, code, currenry: 'BRL', ...extra });

describe('operation log', () => {
  const ctx = useApp();

  test('a change is logged with the acting user, path, method, client IP and body', async () => {
    const admin = await ctx().withRole('super-admin');
    const res = await admin.client.post('/api/admin/banks?ignored=1', bank('log-1'));
    assert.equal(res.status, 201);
    const id = data<{ id: number }>(res.json).id;
    const log = await lastLog(ctx());
    assert.equal(Number(log.user_id), admin.id);
    assert.equal(log.path, '/api/admin/banks');
    assert.equal(log.method, 'POST');
    assert.equal(log.ip, '127.0.0.1');
    assert.deepEqual(log.payload, bank('log-1'));

    await admin.client.delete(`/api/admin/banks/${id}`);
    const deleted = await lastLog(ctx());
    assert.equal(deleted.path, `/api/admin/banks/${id}`);
    assert.equal(deleted.method, 'DELETE');
    assert.deepEqual(deleted.payload, {});
  });

  test('secrets are redacted at any depth, card numbers cut to four digits, other fields (code too) kept', async () => {
    const admin = await ctx().withRole('super-admin');
    const res = await admin.client.post(
      '/api/admin/banks',
      bank('log-2', {
        token: 'tok',
        nested: { secret: 's', wallet_secret: 'w', list: [{ recovery_code: 'r', current_password: 'c', keep: 'yes' }] },
        card_number: '4111 1111 1111 1234',
      }),
    );
    assert.equal(res.status, 201);
    const log = await lastLog(ctx());
    assert.deepEqual(log.payload, {
      ...bank('log-2'),
      token: '[redacted]',
      nested: {
        secret: '[redacted]',
        wallet_secret: '[redacted]',
        list: [{ recovery_code: '[redacted]', current_password: '[redacted]', keep: 'yes' }],
      },
      card_number: '1234',
    });
    assert.deepEqual(redactPayload({ password: 'p', password_confirmation: 'p', code: '123456', card_number: 4111111111111111 }), {
      password: '[redacted]',
      password_confirmation: '[redacted]',
      code: '123456',
      card_number: '1111',
    });
  });

  test('a change that fails after the log row was written leaves no log row', async () => {
    const admin = await ctx().withRole('super-admin');
    const request = {
      user: { id: admin.id } as AuthUser,
      url: '/api/admin/banks',
      method: 'POST',
      ip: '127.0.0.1',
      body: {},
    } as unknown as FastifyRequest;
    const before = await countLogs(ctx());
    await assert.rejects(
      loggedTransaction(ctx().db, operationEntry(request), async (tx) => {
        await tx.execute(sql`insert into banks (name, code, currenry) values ('Ghost', 'ghost', 'BRL')`);
        throw new Error('the change fails late');
      }),
      /fails late/,
    );
    assert.equal(await countLogs(ctx()), before);
    assert.equal(await one(ctx().db, sql`select 1 from banks where code = 'ghost'`), undefined);

    // Over HTTP: a database constraint refuses the delete of a bank that still has cards.
    const created = await admin.client.post('/api/admin/banks', bank('log-3'));
    const bankId = data<{ id: number }>(created.json).id;
    await admin.client.post('/api/admin/bank-cards', {
      bank_id: bankId,
      user_id: admin.id,
      holder_name: 'A',
      card_number: '4111111111111111',
    });
    const logs = await countLogs(ctx());
    const refused = await admin.client.delete(`/api/admin/banks/${bankId}`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.json, { message: 'The bank has bank cards and cannot be deleted.' });
    assert.equal(await countLogs(ctx()), logs);
  });

  test('the log lists newest first with filters, shows one wrapped in data, and reads are not logged', async () => {
    const admin = await ctx().withRole('super-admin');
    const other = await ctx().withRole('super-admin');
    await admin.client.post('/api/admin/banks', bank('log-4'));
    await other.client.post('/api/admin/banks', bank('log-5'));
    const before = await countLogs(ctx());

    const mine = await admin.client.get(`/api/admin/operation-logs?user_id=${admin.id}`);
    assert.equal(mine.status, 200);
    const list = page<OperationLog>(mine.json);
    assert.ok(list.data.length >= 1);
    assert.ok(list.data.every((log) => log.user_id === admin.id));
    const ids = list.data.map((log) => log.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
    );

    const posts = page<OperationLog>((await admin.client.get('/api/admin/operation-logs?method=post&per_page=100')).json);
    assert.ok(posts.data.every((log) => log.method === 'POST'));
    const byPath = page<OperationLog>((await admin.client.get('/api/admin/operation-logs?path=/api/admin/banks&per_page=100')).json);
    assert.ok(byPath.data.length >= 2 && byPath.data.every((log) => log.path.startsWith('/api/admin/banks')));
    const today = new Date().toISOString().slice(0, 10);
    const todays = page<OperationLog>((await admin.client.get(`/api/admin/operation-logs?from=${today}&to=${today}`)).json);
    assert.equal(todays.meta.total, before);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal(page((await admin.client.get(`/api/admin/operation-logs?from=${tomorrow}`)).json).meta.total, 0);
    assert.equal((await admin.client.get('/api/admin/operation-logs?from=yesterday')).status, 422);

    const first = list.data[0]!;
    const shown = await admin.client.get(`/api/admin/operation-logs/${first.id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.json, { data: first });
    assert.deepEqual(Object.keys(first).sort(), ['created_at', 'id', 'ip', 'method', 'path', 'payload', 'updated_at', 'user_id']);
    assert.equal(await countLogs(ctx()), before);
  });

  test('deleting a log row answers 204 and is itself logged', async () => {
    const admin = await ctx().withRole('super-admin');
    await admin.client.post('/api/admin/banks', bank('log-6'));
    const target = await lastLog(ctx());
    const res = await admin.client.delete(`/api/admin/operation-logs/${target.id}`);
    assert.equal(res.status, 204);
    assert.equal((await admin.client.get(`/api/admin/operation-logs/${target.id}`)).status, 404);
    const trace = await lastLog(ctx());
    assert.equal(trace.method, 'DELETE');
    assert.equal(trace.path, `/api/admin/operation-logs/${target.id}`);
    assert.equal((await admin.client.delete('/api/admin/operation-logs/99999999')).status, 404);
  });
});

describe('operation log behind a trusted proxy', () => {
  const ctx = useApp({ TRUSTED_PROXIES: '10.0.0.1' });

  test('the client address comes from X-Forwarded-For only when the proxy is trusted', async () => {
    const admin = await ctx().withRole('super-admin');
    const viaProxy = ctx().client({ ip: '10.0.0.1' });
    viaProxy.jar.clear();
    for (const [name, value] of admin.client.jar) viaProxy.jar.set(name, value);
    await viaProxy.post('/api/admin/banks', bank('proxy-1'), { 'x-forwarded-for': '203.0.113.9' });
    assert.equal((await lastLog(ctx())).ip, '203.0.113.9');

    const direct = ctx().client({ ip: '198.51.100.7' });
    for (const [name, value] of admin.client.jar) direct.jar.set(name, value);
    await direct.post('/api/admin/banks', bank('proxy-2'), { 'x-forwarded-for': '203.0.113.9' });
    assert.equal((await lastLog(ctx())).ip, '198.51.100.7');
  });
});
