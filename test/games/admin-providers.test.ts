import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { Keyring } from '../../src/platform/crypto.ts';
import { one, rows } from '../../src/platform/db/client.ts';
import { lastLog, page, userWithPermissions } from '../admin/support.ts';
import { TEST_KEY, useApp } from '../helpers/app.ts';
import { createGame, createProvider, dataOf, listOf, slug, type AdminProvider } from './support.ts';

const SECRET = 'provider-wallet-secret-0123456789';

describe('admin providers', () => {
  const ctx = useApp();

  test('a provider is created enabled with the demo adapter, read, updated, listed by sort and deleted', async () => {
    const { client } = await ctx().withRole('super-admin');
    const code = slug('acme');
    const created = await client.post('/api/admin/providers', { name: 'Acme Games', code });
    assert.equal(created.status, 201, created.text);
    const provider = dataOf<AdminProvider>(created);
    assert.deepEqual(
      { ...provider, id: 0, created_at: '', updated_at: '' },
      {
        id: 0,
        name: 'Acme Games',
        code,
        sort: 0,
        status: 1,
        adapter: 'demo',
        games_count: 0,
        has_wallet_secret: false,
        adapter_config: null,
        adapter_secrets: [],
        created_at: '',
        updated_at: '',
      },
    );
    assert.deepEqual((await client.get(`/api/admin/providers/${provider.id}`)).json, { data: provider });

    const updated = await client.put(`/api/admin/providers/${provider.id}`, { name: 'Acme', sort: -5, status: 0 });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(
      [dataOf<AdminProvider>(updated).name, dataOf<AdminProvider>(updated).sort, dataOf<AdminProvider>(updated).status],
      ['Acme', -5, 0],
    );

    const later = await createProvider(client, { sort: -5 });
    const first = await createProvider(client, { sort: -6 });
    const listed = listOf<AdminProvider>(await client.get(`/api/admin/providers?per_page=100`)).map((p) => p.id);
    assert.deepEqual(
      listed.filter((id) => [first.id, provider.id, later.id].includes(id)),
      [first.id, provider.id, later.id],
    );
    assert.deepEqual(
      listOf<AdminProvider>(await client.get(`/api/admin/providers?status=0&q=${code}`)).map((p) => p.id),
      [provider.id],
    );

    assert.equal((await client.delete(`/api/admin/providers/${provider.id}`)).status, 204);
    assert.equal((await client.get(`/api/admin/providers/${provider.id}`)).status, 404);
  });

  test('the code is a unique lower-case slug, on create and on update', async () => {
    const { client } = await ctx().withRole('super-admin');
    const taken = await createProvider(client);
    const other = await createProvider(client);
    const taken422 = { message: 'The code has already been taken.', errors: { code: ['The code has already been taken.'] } };
    const dup = await client.post('/api/admin/providers', { name: 'Dup', code: taken.code });
    assert.equal(dup.status, 422);
    assert.deepEqual(dup.json, taken422);
    const renamed = await client.put(`/api/admin/providers/${other.id}`, { code: taken.code });
    assert.equal(renamed.status, 422);
    assert.deepEqual(renamed.json, taken422);
    // Its own code is not a conflict with itself.
    assert.equal((await client.put(`/api/admin/providers/${taken.id}`, { code: taken.code })).status, 200);
    for (const code of ['Upper', 'two--hyphens', '123', 'sp ace', '-lead']) {
      const res = await client.post('/api/admin/providers', { name: 'Bad', code });
      assert.equal(res.status, 422, code);
      assert.ok('code' in (res.json as { errors: object }).errors, code);
    }
  });

  test('the adapter must be one this service knows', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/providers', { name: 'X', code: slug('x'), adapter: 'nope' });
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, { message: 'The selected adapter is invalid.', errors: { adapter: ['The selected adapter is invalid.'] } });
    const provider = await createProvider(client, { adapter: 'demo' });
    assert.equal((await client.put(`/api/admin/providers/${provider.id}`, { adapter: 'gone' })).status, 422);
  });

  test('the wallet secret is stored encrypted, never returned, and redacted in the operation log', async () => {
    const { client } = await ctx().withRole('super-admin');
    const created = await client.post('/api/admin/providers', { name: 'Secretive', code: slug('sec'), wallet_secret: SECRET });
    assert.equal(created.status, 201, created.text);
    const provider = dataOf<AdminProvider>(created);
    assert.equal(provider.has_wallet_secret, true);
    assert.equal((await lastLog(ctx())).payload.wallet_secret, '[redacted]');

    const stored = await one<{ wallet_secret: string }>(ctx().db, sql`select wallet_secret from providers where id = ${provider.id}`);
    assert.notEqual(stored!.wallet_secret, SECRET);
    assert.equal(new Keyring(Buffer.from(TEST_KEY, 'base64')).decrypt(stored!.wallet_secret), SECRET);

    const replaced = `${SECRET}-rotated`;
    const updated = await client.put(`/api/admin/providers/${provider.id}`, { wallet_secret: replaced });
    assert.equal(updated.status, 200);
    assert.equal((await lastLog(ctx())).payload.wallet_secret, '[redacted]');
    const rotated = await one<{ wallet_secret: string }>(ctx().db, sql`select wallet_secret from providers where id = ${provider.id}`);
    assert.equal(new Keyring(Buffer.from(TEST_KEY, 'base64')).decrypt(rotated!.wallet_secret), replaced);

    const responses = [
      created,
      updated,
      await client.get(`/api/admin/providers/${provider.id}`),
      await client.get('/api/admin/providers?per_page=100'),
      await client.get(`/api/admin/operation-logs?per_page=100`),
    ];
    for (const res of responses) {
      assert.equal(res.text.includes(SECRET), false, res.text);
      assert.equal(res.text.includes('wallet_secret":"v1.'), false);
      assert.equal(res.text.includes(stored!.wallet_secret), false);
    }
    const logs = await rows<{ payload: string }>(ctx().db, sql`select payload::text as payload from operation_logs`);
    assert.ok(logs.length >= 2);
    assert.equal(
      logs.some((log) => log.payload.includes(SECRET)),
      false,
      'no operation log holds the secret',
    );
  });

  test('a short wallet secret is refused', async () => {
    const { client } = await ctx().withRole('super-admin');
    const res = await client.post('/api/admin/providers', { name: 'Weak', code: slug('weak'), wallet_secret: 'short' });
    assert.equal(res.status, 422);
    assert.deepEqual((res.json as { errors: object }).errors, {
      wallet_secret: ['The wallet secret field must be at least 16 characters.'],
    });
  });

  test('games_count counts its games, and a provider with games cannot be deleted', async () => {
    const { client } = await ctx().withRole('super-admin');
    const provider = await createProvider(client);
    await createGame(client, provider.id);
    await createGame(client, provider.id, { status: 0 });
    assert.equal(dataOf<AdminProvider>(await client.get(`/api/admin/providers/${provider.id}`)).games_count, 2);
    const refused = await client.delete(`/api/admin/providers/${provider.id}`);
    assert.equal(refused.status, 409);
    assert.deepEqual(refused.json, { message: 'The provider has games and cannot be deleted; disable it instead.' });
    assert.equal((await client.get(`/api/admin/providers/${provider.id}`)).status, 200);
  });

  test('reads need providers.view and writes providers.manage', async () => {
    const viewer = await userWithPermissions(ctx(), ['providers.view']);
    assert.equal((await viewer.client.get('/api/admin/providers')).status, 200);
    assert.equal((await viewer.client.post('/api/admin/providers', { name: 'N', code: slug('n') })).status, 403);
    const player = await ctx().player();
    assert.equal((await player.client.get('/api/admin/providers')).status, 403);
    assert.equal(page((await viewer.client.get('/api/admin/providers')).json).meta.current_page, 1);
  });
});
