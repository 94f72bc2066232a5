import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { isDatabaseUnavailable, one, openDatabase, transaction } from '../../src/platform/db/client.ts';
import { migrate } from '../../src/platform/db/migrate.ts';
import { backend } from '../helpers/database.ts';
import { useApp, type Client, type Response, type TestApp } from '../helpers/app.ts';

function assertUnavailable(res: Response, what: string): void {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.deepEqual(res.json, { message: 'Service Unavailable.' }, what);
  assert.ok(Number(res.headers['retry-after']) > 0, `${what} carries Retry-After`);
}

/** A guest, a signed-in player and a readiness probe: what every kind of request meets first. */
async function requestsDuringOutage(app: TestApp, player: Client): Promise<[string, Response][]> {
  const guest = app.client();
  return [
    ['GET /ready', await guest.get('/ready')],
    ['GET /api/csrf-cookie', await guest.csrf()],
    ['GET /api/user', await player.get('/api/user')],
    ['GET /api/user/balance', await player.get('/api/user/balance')],
    ['POST /api/logout', await player.post('/api/logout')],
  ];
}

async function assertServing(app: TestApp): Promise<void> {
  const ready = await app.client().get('/ready');
  assert.deepEqual([ready.status, ready.json], [200, { status: 'ok' }]);
  const client = app.client();
  assert.equal((await client.csrf()).status, 204);
  assert.equal((await client.get('/api/user')).status, 401);
}

describe('a database whose schema is gone', () => {
  // Sessions are read from the database on every request, so the sign-in check meets the outage
  // (a cached session would answer GET /api/user from memory: test/sessions/session-cache.test.ts).
  const ctx = useApp({ SESSION_CACHE_S: '0' });

  test('/ready is 503 while a migration this code needs is not recorded', async () => {
    const last = await one<{ name: string }>(ctx().db, sql`select name from schema_migrations order by name desc limit 1`);
    await ctx().db.execute(sql`delete from schema_migrations where name = ${last!.name}`);
    assertUnavailable(await ctx().client().get('/ready'), 'GET /ready');
    await ctx().db.execute(sql`insert into schema_migrations (name) values (${last!.name})`);
    assert.equal((await ctx().client().get('/ready')).status, 200);
  });

  test("/ready is 503 while a function file this code needs was never applied, and 200 with another release's text of it", async () => {
    const recorded = await one<{ hash: string }>(ctx().db, sql`select hash from schema_functions where name = 'ledger_apply'`);
    await ctx().db.execute(sql`delete from schema_functions where name = 'ledger_apply'`);
    assertUnavailable(await ctx().client().get('/ready'), 'GET /ready');
    // A rolling deploy: the other release migrated last, and both run on its functions.
    await ctx().db.execute(sql`insert into schema_functions (name, hash) values ('ledger_apply', 'another release')`);
    assert.equal((await ctx().client().get('/ready')).status, 200);
    await ctx().db.execute(sql`update schema_functions set hash = ${recorded!.hash} where name = 'ledger_apply'`);
  });

  test('with every table dropped, /ready and requests are 503; migrated again, the service answers by itself', async () => {
    const player = await ctx().player();
    await ctx().db.execute(sql`drop schema public cascade`);
    await ctx().db.execute(sql`create schema public`);
    for (const [what, res] of await requestsDuringOutage(ctx(), player.client)) assertUnavailable(res, what);
    assert.equal((await ctx().client().get('/health')).status, 200, '/health only says the process is up');

    await migrate(ctx().database.database);
    await assertServing(ctx());
  });
});

describe('a PostgreSQL database that goes away', { skip: backend !== 'postgres' && 'needs PostgreSQL' }, () => {
  // Sessions are read from the database on every request, so the sign-in check meets the outage
  // (a cached session would answer GET /api/user from memory: test/sessions/session-cache.test.ts).
  const ctx = useApp({ SESSION_CACHE_S: '0' });

  async function onServer(statement: (name: string) => string): Promise<void> {
    const url = new URL(ctx().database.url!);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    try {
      await admin.query(statement(name));
    } finally {
      await admin.end();
    }
  }

  test('a connection terminated under a running request is a 503; the next requests are served again', async () => {
    const player = await ctx().player();
    // The request's session lookup waits on a lock, so its connection is terminated mid-query.
    const locker = new pg.Client({ connectionString: ctx().database.url });
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table sessions in access exclusive mode');
    const running = player.client.get('/api/user');
    for (let waiting = 0; waiting === 0;) {
      const { rows } = await locker.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      waiting = rows[0]!.n;
    }
    await locker.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    await locker.query('rollback');
    await locker.end();
    assertUnavailable(await running, 'the terminated request');

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await player.client.get('/api/user')).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200], 'served again without a restart');
  });

  test('a connection lost between two statements of a transaction fails that transaction as unavailable, and the process goes on', async () => {
    const admin = new pg.Client({ connectionString: ctx().database.url });
    await admin.connect();
    let failure: unknown;
    try {
      await transaction(ctx().db, async (tx) => {
        const own = await one<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
        await admin.query('select pg_terminate_backend($1)', [own!.pid]);
        // Once the session is gone its FATAL message has been sent; this process reads it while
        // the transaction runs no query, which is when a client without a listener crashes it.
        for (let alive = 1; alive > 0;) {
          const { rows } = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where pid = $1', [own!.pid]);
          alive = rows[0]!.n;
        }
        await admin.query('select 1');
        await tx.execute(sql`select 1`);
      });
    } catch (error) {
      failure = error;
    } finally {
      await admin.end();
    }
    assert.ok(isDatabaseUnavailable(failure), `the transaction failed as unavailable: ${String(failure)}`);
    assert.equal((await ctx().client().get('/ready')).status, 200, 'the pool serves again');
  });

  test('a dropped database is a 503 on every request; recreated and migrated, the service answers by itself', async () => {
    const player = await ctx().player();
    await onServer((name) => `drop database ${name} with (force)`);
    for (const [what, res] of await requestsDuringOutage(ctx(), player.client)) assertUnavailable(res, what);

    await onServer((name) => `create database ${name}`);
    const fresh = await openDatabase({ databaseUrl: ctx().database.url, dataDir: '' });
    await migrate(fresh);
    await fresh.close();
    await assertServing(ctx());
  });
});
