import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, mock, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openDatabase, type Database } from '../../src/platform/db/client.ts';
import { SESSIONS_TOPIC } from '../../src/platform/session/cached-store.ts';
import { Client, startApp, useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { run } from '../helpers/cli.ts';

const REDIS_URL = 'redis://127.0.0.1:6379/7';

function sameCookies(from: Client, app: FastifyInstance): Client {
  const client = new Client(app);
  for (const [name, value] of from.jar) client.jar.set(name, value);
  return client;
}

describe('the session cache of one instance', () => {
  const ctx = useApp({ SESSION_LIFETIME_MIN: '1', SESSION_CACHE_S: '3600' });

  test('a signed-in read is answered from memory: a session deleted behind the app is still read until the app hears of it', async () => {
    const { client } = await ctx().player();
    assert.equal((await client.get('/api/user')).status, 200);
    await ctx().db.execute(sql`delete from sessions`);
    assert.equal((await client.get('/api/user')).status, 200);
    await ctx().changedOutside();
    assert.equal((await client.get('/api/user')).status, 401);
  });

  test('a cached session idle for longer than the lifetime is refused', async () => {
    const { client } = await ctx().player();
    assert.equal((await client.get('/api/user')).status, 200);
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 61_000 });
    try {
      const res = await client.get('/api/user');
      assert.equal(res.status, 401);
      assert.deepEqual(res.json, { message: 'Unauthenticated.' });
    } finally {
      mock.timers.reset();
    }
  });

  test('logout and a profile change are seen by the next request', async () => {
    const { client, email } = await ctx().player({ name: 'Before' });
    assert.equal((await client.get('/api/user')).status, 200);
    assert.equal((await client.put('/api/user/profile-information', { name: 'After', email })).status, 200);
    assert.equal(((await client.get('/api/user')).json as { name: string }).name, 'After');
    assert.equal((await client.post('/api/logout', {})).status, 204);
    assert.equal((await client.get('/api/user')).status, 401);
  });
});

/**
 * Redis sends a message to every subscriber in one pass, so once the instance that made a change
 * hears its own echo the others have it too: the very next request sees it. PostgreSQL's
 * listening backends deliver independently, a moment apart, so there the test waits until the
 * other instance has heard (docs/architecture.md, "Session cache").
 */
const buses: { name: string; env: Record<string, string>; waits: boolean }[] = [
  { name: 'PostgreSQL NOTIFY (no REDIS_URL)', env: {}, waits: true },
  { name: 'Redis pub/sub', env: { REDIS_URL }, waits: false },
];
for (const bus of buses) {
  describe(`the session cache across two instances: ${bus.name}`, () => {
    let first: TestApp | undefined;
    let second: FastifyInstance;
    let secondDatabase: Database | undefined;
    let skip = false;

    before(async () => {
      first = await startApp({ SESSION_CACHE_S: '3600', ...bus.env });
      if (first.database.url === undefined) {
        // The embedded database belongs to one process: there is no second instance to tell.
        skip = true;
        return;
      }
      secondDatabase = await openDatabase({ databaseUrl: first.database.url, dataDir: '', poolSize: 2 });
      second = await buildApp(first.config, { database: secondDatabase, hashing: { memoryCost: 1024, timeCost: 1 } });
      await second.ready();
      await Promise.all([first.app.invalidation.ready(), second.invalidation.ready()]);
    });
    after(async () => {
      await second?.close();
      await secondDatabase?.close();
      await first?.close();
    });

    /** Runs `change` on the first instance; where delivery is not in one pass, until the second heard of it. */
    async function changeOnFirst<T>(change: () => Promise<T>): Promise<T> {
      if (!bus.waits) return change();
      const heard = new Promise<void>((resolve) => {
        const off = second.invalidation.subscribe(SESSIONS_TOPIC, () => {
          off();
          resolve();
        });
      });
      const result = await change();
      await heard;
      return result;
    }

    /** A player signed in on the first instance whose session the second has cached. */
    async function cachedElsewhere(): Promise<SignedIn & { elsewhere: Client }> {
      const player = await first!.player();
      const elsewhere = sameCookies(player.client, second);
      assert.equal((await elsewhere.get('/api/user')).status, 200);
      return { ...player, elsewhere };
    }

    test('a logout on one instance ends the session on the other at the next request', async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const { client, elsewhere } = await cachedElsewhere();
      assert.equal((await changeOnFirst(() => client.post('/api/logout', {}))).status, 204);
      assert.equal((await elsewhere.get('/api/user')).status, 401);
    });

    test('an admin disabling a user on one instance signs them out on the other at the next request', async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const admin = await first!.withRole('super-admin');
      const { id, elsewhere } = await cachedElsewhere();
      assert.equal((await changeOnFirst(() => admin.client.put(`/api/admin/users/${id}`, { status: 0 }))).status, 200);
      assert.equal((await elsewhere.get('/api/user')).status, 401);
    });

    test('a password change ends the other sessions on the other instance and keeps its own', async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const { client, email, password } = await cachedElsewhere();
      const other = first!.client();
      await other.csrf();
      assert.equal((await other.post('/api/login', { email, password })).status, 200);
      const otherElsewhere = sameCookies(other, second);
      assert.equal((await otherElsewhere.get('/api/user')).status, 200);
      const changed = await changeOnFirst(() =>
        client.put('/api/user/password', {
          current_password: password,
          password: 'changed-password',
          password_confirmation: 'changed-password',
        }),
      );
      assert.equal(changed.status, 200);
      assert.equal((await otherElsewhere.get('/api/user')).status, 401);
      assert.equal((await sameCookies(client, second).get('/api/user')).status, 200);
    });

    test('roles and profile changed on one instance show on the other at the next request', async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const admin = await first!.withRole('super-admin');
      const { id, elsewhere } = await cachedElsewhere();
      assert.equal(
        (await changeOnFirst(() => admin.client.put(`/api/admin/users/${id}`, { roles: ['admin'], name: 'Renamed' }))).status,
        200,
      );
      const me = (await elsewhere.get('/api/user')).json as { name: string; roles: string[] };
      assert.equal(me.name, 'Renamed');
      assert.deepEqual(me.roles, ['admin']);
    });

    /** Runs `croupier <args>` beside both instances, on their database and bus; it must succeed without a word on stderr. */
    async function runBeside(args: string[]): Promise<void> {
      const dataDir = mkdtempSync(join(tmpdir(), 'croupier-announce-'));
      try {
        const ran = await run(args, { DATA_DIR: dataDir, DATABASE_URL: first!.database.url!, ...bus.env });
        assert.equal(ran.code, 0, ran.stderr);
        assert.equal(ran.stderr, '');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }

    /**
     * What `read` answers through each client once `seen` holds, waiting up to 5 s: a command's
     * message reaches each instance on its own listening connection, a moment after it ends.
     */
    async function onBothEventually<T>(clients: Client[], read: (of: Client) => Promise<T>, seen: (value: T) => boolean): Promise<T[]> {
      const answers: T[] = [];
      for (const of of clients) {
        const until = Date.now() + 5_000;
        let value = await read(of);
        while (!seen(value) && Date.now() < until) {
          await sleep(25);
          value = await read(of);
        }
        answers.push(value);
      }
      return answers;
    }

    test("croupier admin:create resetting a signed-in user's password beside running instances signs them out on both", async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const { client, email, elsewhere } = await cachedElsewhere();
      const status = async (of: Client) => (await of.get('/api/user')).status;
      assert.deepEqual([await status(client), await status(elsewhere)], [200, 200]);
      await runBeside(['admin:create', '--email', email, '--password', 'promoted-password']);
      // Without the command's message both would serve the cached session for an hour.
      assert.deepEqual(await onBothEventually([client, elsewhere], status, (code) => code !== 200), [401, 401]);
    });

    test("croupier seed:demo beside running instances shows its provider in both instances' cached catalogue", async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const { client, elsewhere } = await cachedElsewhere();
      const hasDemo = async (of: Client) =>
        ((await of.get('/api/providers')).json as { data: { code: string }[] }).data.some((p) => p.code === 'demo');
      // Both instances have cached the catalogue without the demo provider.
      assert.deepEqual([await hasDemo(client), await hasDemo(elsewhere)], [false, false]);
      await runBeside(['seed:demo', '--password', 'demo-password-1']);
      // Without the command's message both would serve the cached list for up to a minute.
      assert.deepEqual(await onBothEventually([client, elsewhere], hasDemo, (has) => has), [true, true]);
    });

    test('a role deleted on one instance leaves its holders on the other at the next request', async (t) => {
      if (skip) return t.skip('PostgreSQL only');
      const admin = await first!.withRole('super-admin');
      const role = await admin.client.post('/api/admin/roles', { name: `temporary-${process.pid}` });
      assert.equal(role.status, 201);
      const { id: roleId, name } = (role.json as { data: { id: number; name: string } }).data;
      const { id, elsewhere } = await cachedElsewhere();
      assert.equal((await changeOnFirst(() => admin.client.put(`/api/admin/users/${id}`, { roles: [name] }))).status, 200);
      assert.deepEqual(((await elsewhere.get('/api/user')).json as { roles: string[] }).roles, [name]);
      assert.equal((await changeOnFirst(() => admin.client.delete(`/api/admin/roles/${roleId}`))).status, 204);
      assert.deepEqual(((await elsewhere.get('/api/user')).json as { roles: string[] }).roles, []);
    });
  });
}
