import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { errorCode, isDatabaseUnavailable, one, openDatabase } from '../../src/platform/db/client.ts';
import { backend } from '../helpers/database.ts';

/** A local port nothing listens on: connections to it are refused, as to a node that died. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The test server's URL with `hosts` in place of its host and port. */
function withHosts(url: string, hosts: string, query: string): string {
  const parsed = new URL(url);
  const userInfo = parsed.username === '' ? '' : `${parsed.username}${parsed.password === '' ? '' : `:${parsed.password}`}@`;
  return `postgres://${userInfo}${hosts}${parsed.pathname}?${query}`;
}

describe('a multi-host DATABASE_URL (contract section 19)', { skip: backend !== 'postgres' }, () => {
  const url = () => process.env.TEST_DATABASE_URL!;
  const here = () => `${new URL(url()).hostname}:${new URL(url()).port || 5432}`;

  test('the pool, a leader lock and a direct session find the writable host past one that refuses connections', async () => {
    const multi = withHosts(url(), `127.0.0.1:${await deadPort()},${here()}`, 'target_session_attrs=read-write&sslmode=prefer');
    const database = await openDatabase({ databaseUrl: multi, dataDir: '/nonexistent' });
    try {
      const row = await one<{ standby: boolean }>(database.db, sql`select pg_is_in_recovery() as standby`);
      assert.equal(row?.standby, false);
      // A transaction checks a client out of the pool: it must be on the same host.
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`create temporary table failover_probe (n int)`);
        await tx.execute(sql`insert into failover_probe values (1)`);
      });
      const lock = database.leaderLock('failover-pool-test');
      assert.equal(await lock.acquire(), true);
      assert.equal(await lock.acquire(), true);
      await lock.release();
      const answered = await database.onDirectConnection((db) => one<{ n: number }>(db, sql`select 1 as n`));
      assert.equal(answered?.n, 1);
    } finally {
      await database.close();
    }
  });

  test('no host that accepts a read-write session: the error is the database unavailable, within the search bound', async () => {
    const multi = withHosts(url(), `127.0.0.1:${await deadPort()},127.0.0.1:${await deadPort()}`, 'target_session_attrs=read-write');
    const database = await openDatabase({ databaseUrl: multi, dataDir: '/nonexistent' });
    try {
      await assert.rejects(
        database.db.execute(sql`select 1`),
        (error: unknown) => errorCode(error) === '08001' && isDatabaseUnavailable(error),
      );
    } finally {
      await database.close();
    }
  });
});
