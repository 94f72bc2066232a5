import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
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

/** A TCP proxy to PostgreSQL standing for one node: it counts the connections it carried, and can die. */
class Node {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  connections = 0;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = createServer((client) => {
      this.connections += 1;
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
    return this;
  }

  /** The machine is gone: its connections cut, new ones refused. */
  async die(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
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

  test('a node lost under the pool: a request meeting it is at worst the database unavailable (a 503), and the next ones go to the other node', async () => {
    const target = { host: new URL(url()).hostname, port: Number(new URL(url()).port || 5432) };
    const [a, b] = [await new Node(target).start(), await new Node(target).start()];
    const multi = withHosts(url(), `127.0.0.1:${a.port},127.0.0.1:${b.port}`, 'target_session_attrs=read-write');
    const database = await openDatabase({ databaseUrl: multi, dataDir: '/nonexistent' });
    try {
      await database.db.execute(sql`select 1`);
      assert.deepEqual([a.connections > 0, b.connections], [true, 0], 'the pool is on the first node');
      await a.die();
      // Whichever comes first, the dead connection's query or its close event: never another error.
      const first = await database.db.execute(sql`select 1`).then(
        () => 'answered',
        (error: unknown) => (isDatabaseUnavailable(error) ? 'unavailable' : error),
      );
      assert.ok(first === 'answered' || first === 'unavailable', String(first));
      const row = await one<{ n: number }>(database.db, sql`select 2 as n`);
      assert.equal(row?.n, 2);
      assert.ok(b.connections > 0, 'the pool moved to the second node');
      await b.die();
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
