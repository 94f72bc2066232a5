import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { testConfig, useApp, type Client, type SignedIn } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/database.ts';
import { userWithPermissions } from './support.ts';

/** Every admin resource of this issue, with a body that would be valid for its create. */
const RESOURCES = ['users', 'roles', 'permissions', 'banks', 'bank-cards', 'operation-logs'] as const;
const WRITABLE = new Set(['users', 'roles', 'permissions', 'banks', 'bank-cards']);

async function statuses(client: Client, resource: string): Promise<Record<string, number>> {
  const base = `/api/admin/${resource}`;
  const out: Record<string, number> = {
    list: (await client.get(base)).status,
    show: (await client.get(`${base}/1`)).status,
    delete: (await client.delete(`${base}/999999`)).status,
  };
  if (WRITABLE.has(resource)) {
    out.create = (await client.post(base, {})).status;
    out.update = (await client.put(`${base}/999999`, {})).status;
  }
  return out;
}

function all(resource: string, status: number): Record<string, number> {
  const out: Record<string, number> = { list: status, show: status, delete: status };
  if (WRITABLE.has(resource)) Object.assign(out, { create: status, update: status });
  return out;
}

describe('admin permission matrix', () => {
  const ctx = useApp();
  let guest: Client;
  let player: SignedIn;
  let viewer: SignedIn;
  let root: SignedIn;

  before(async () => {
    guest = ctx().client();
    await guest.csrf();
    player = await ctx().player();
    viewer = await userWithPermissions(
      ctx(),
      RESOURCES.map((r) => `${r}.view`),
    );
    root = await ctx().withRole('super-admin');
  });

  for (const resource of RESOURCES) {
    test(`${resource}: a guest gets 401 everywhere`, async () => {
      assert.deepEqual(await statuses(guest, resource), all(resource, 401));
    });

    test(`${resource}: a player gets 403 everywhere`, async () => {
      assert.deepEqual(await statuses(player.client, resource), all(resource, 403));
    });

    test(`${resource}: a role with only ${resource}.view can read but not change`, async () => {
      const got = await statuses(viewer.client, resource);
      assert.equal(got.list, 200);
      assert.ok([200, 404].includes(got.show!));
      const writes = Object.fromEntries(Object.entries(got).filter(([action]) => !['list', 'show'].includes(action)));
      assert.deepEqual(writes, Object.fromEntries(Object.keys(writes).map((action) => [action, 403])));
    });

    test(`${resource}: a super-admin passes every permission check`, async () => {
      const got = await statuses(root.client, resource);
      assert.equal(got.list, 200);
      assert.ok([200, 404].includes(got.show!));
      assert.equal(got.delete, 404);
      if (WRITABLE.has(resource)) {
        assert.equal(got.create, 422);
        assert.equal(got.update, 404);
      }
    });
  }

  test('upload: guest 401, player 403, uploads.view only 403', async () => {
    const uploadViewer = await userWithPermissions(ctx(), ['uploads.view']);
    assert.equal((await guest.post('/api/admin/upload', {})).status, 401);
    assert.equal((await player.client.post('/api/admin/upload', {})).status, 403);
    assert.equal((await uploadViewer.client.post('/api/admin/upload', {})).status, 403);
    assert.equal((await root.client.post('/api/admin/upload', {})).status, 422);
  });

  test('held wins: guest 401, player 403, provider-bets.view reads but neither releases nor refuses, super-admin passes', async () => {
    const reader = await userWithPermissions(ctx(), ['provider-bets.view']);
    const statusesOf = async (client: Client) => ({
      list: (await client.get('/api/admin/held-wins')).status,
      show: (await client.get('/api/admin/held-wins/999999')).status,
      release: (await client.post('/api/admin/held-wins/999999/release', {})).status,
      refuse: (await client.post('/api/admin/held-wins/999999/refuse', { reason: 'x' })).status,
    });
    assert.deepEqual(await statusesOf(guest), { list: 401, show: 401, release: 401, refuse: 401 });
    assert.deepEqual(await statusesOf(player.client), { list: 403, show: 403, release: 403, refuse: 403 });
    assert.deepEqual(await statusesOf(reader.client), { list: 200, show: 404, release: 403, refuse: 403 });
    assert.deepEqual(await statusesOf(root.client), { list: 200, show: 404, release: 404, refuse: 404 });
  });

  test('a change without the XSRF token is 419 before any permission check', async () => {
    assert.equal((await root.client.post('/api/admin/banks', {}, { 'x-xsrf-token': '' })).status, 419);
  });

  test('the OpenAPI document lists every admin path of this issue with its schemas', async () => {
    const res = await ctx().client().get('/docs/json');
    const doc = res.json as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const resource of RESOURCES) {
      assert.ok(doc.paths[`/api/admin/${resource}`]?.get?.responses['200'], resource);
    }
    assert.ok(doc.paths['/api/admin/users/{user}']?.put);
    assert.ok(doc.paths['/api/admin/bank-cards/{bank_card}']?.delete);
    assert.ok(doc.paths['/api/admin/operation-logs/{operation_log}']?.get);
    assert.ok(doc.paths['/api/admin/upload']?.post);
    for (const action of ['release', 'refuse']) {
      const operation = doc.paths[`/api/admin/held-wins/{held_win}/${action}`]?.post as { tags?: string[] } | undefined;
      assert.deepEqual(operation?.tags, ['Admin: held wins'], action);
    }
    assert.ok(doc.paths['/api/admin/held-wins']?.get?.responses['200']);
  });
});

// Every app the suites build passes the same start-up check, so the real admin routes all have one.
describe('admin routes and permissions', () => {
  test('an admin route added without a permission stops the app from starting', async () => {
    const database = await freshDatabase();
    try {
      await assert.rejects(
        buildApp(testConfig(), {
          database: database.database,
          extraRoutes: (app) => app.get('/api/admin/forgotten', async () => ({ open: true })),
        }).then((app) => app.ready()),
        /GET \/api\/admin\/forgotten is an admin route without a permission/,
      );
    } finally {
      await database.drop();
    }
  });
});
