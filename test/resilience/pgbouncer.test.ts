// Issue 18: croupier behind PgBouncer in transaction mode, the pooler docs/production.md
// recommends. Two real `croupier serve` processes send their queries through Debian's pgbouncer
// (DATABASE_URL) and keep what needs a server session of its own (LISTEN, the draw scheduler's
// leader lock, migrations) on a direct connection (DATABASE_DIRECT_URL). No Redis: sessions live
// in PostgreSQL and cache invalidations travel over LISTEN/NOTIFY.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { run } from '../helpers/cli.ts';
import { freePort, registerPlayer, startInstance, stopInstance, type Answer, type Instance } from './instances.ts';
import { findPgBouncer, startPgBouncer, type PgBouncer } from './pgbouncer.ts';
import { assertBooks, prepareWorkload, sharedEnv, type Workload } from './workload.ts';

/** Requests in flight at once, across both instances. */
const CONCURRENCY = 12;
/** Server connections PgBouncer keeps to the database: far fewer than the instances' clients. */
const SERVER_CONNECTIONS = 6;
const LEADS = 'draw scheduler: this instance leads';
const binary = findPgBouncer();

const skip =
  backend !== 'postgres'
    ? 'needs PostgreSQL: PgBouncer pools connections to a PostgreSQL server'
    : binary === undefined && 'PgBouncer is not installed (Debian: apt-get install pgbouncer), so croupier behind it goes untested';

/** The messages an instance logged (LOG_FORMAT=json: one object a line). */
function messages(instance: Instance): string[] {
  return instance
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [String((JSON.parse(line) as { msg?: unknown }).msg)];
      } catch {
        return [];
      }
    });
}

const leads = (instance: Instance) => messages(instance).filter((message) => message === LEADS).length;

describe('two instances behind PgBouncer in transaction mode, without Redis', { skip }, () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let bouncer: PgBouncer | undefined;
  let dataDir: string;
  let env: Record<string, string>;
  let workload: Workload;
  const instances: Instance[] = [];

  before(async () => {
    database = await freshDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'croupier-pgbouncer-data-'));
    bouncer = await startPgBouncer(binary!, database.url!, { poolMode: 'transaction', poolSize: SERVER_CONNECTIONS });
    const appKey = randomBytes(32);
    env = {
      DATABASE_URL: bouncer.url,
      DATABASE_DIRECT_URL: database.url!,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...sharedEnv(appKey),
    };
    const ports = [await freePort(), await freePort()];
    instances.push(...(await Promise.all(ports.map((port) => startInstance(port, env)))));
    workload = await prepareWorkload(
      admin,
      database.database.db,
      instances.map((instance) => instance.url),
      appKey,
      { webhooks: 80, withdrawals: 80, bets: 80, confirms: 30 },
    );
  });
  after(async () => {
    for (const instance of instances) await stopInstance(instance);
    await bouncer?.stop();
    await admin?.end();
    await database?.drop();
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  test('a mixed money load through the pooler gets no 5xx, and the books and ledger:verify are clean', { timeout: 300_000 }, async (t) => {
    const { ops } = workload;
    const urls = instances.map((instance) => instance.url);
    const serverErrors: string[] = [];
    let requests = 0;
    const send = async (what: string, call: () => Promise<Answer>): Promise<Answer> => {
      const answer = await call();
      requests += 1;
      if (answer.status >= 500) serverErrors.push(`${what}: ${answer.status} ${answer.text}`);
      return answer;
    };
    // Between the money calls, the lists a player and an operator page through.
    const player = workload.players[0]!;
    const lists = [
      { what: 'GET /api/transactions', call: (url: string) => player.browser.call(url, 'GET', '/api/transactions') },
      { what: 'GET /api/admin/users', call: (url: string) => workload.operator.browser.call(url, 'GET', '/api/admin/users') },
    ];
    let next = 0;
    const worker = async () => {
      for (;;) {
        const index = next++;
        if (index >= ops.length) return;
        const op = ops[index]!;
        const url = urls[index % urls.length]!;
        op.attempts += 1;
        op.outcome = op.read(await send(op.kind, () => op.send(url)), false);
        const list = lists[index % lists.length]!;
        const page = await send(list.what, () => list.call(url));
        if (page.status < 500) assert.equal(page.status, 200, `${list.what}: ${page.text}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    assert.equal(
      serverErrors.length,
      0,
      `${serverErrors.length} of ${requests} answers were 5xx, e.g.\n${serverErrors.slice(0, 5).join('\n')}`,
    );
    const { lines, report } = await assertBooks(admin, database.database.db, workload);
    // The command an operator runs from cron, with the instances' configuration.
    const verify = await run(['ledger:verify'], {
      DATABASE_URL: env.DATABASE_URL!,
      DATABASE_DIRECT_URL: env.DATABASE_DIRECT_URL!,
      DATA_DIR: dataDir,
    });
    assert.equal(verify.code, 0, `croupier ledger:verify: ${verify.stdout}${verify.stderr}`);

    const connections = await admin.query<{ name: string; n: number }>(
      `select coalesce(nullif(application_name, ''), '(pool)') as name, count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() group by 1 order by 1`,
    );
    t.diagnostic(`operations: ${ops.length}, requests: ${requests} (lists between them), 5xx: ${serverErrors.length}`);
    t.diagnostic(`ledger lines: ${lines}, ledger:verify clean over ${report.balances} balances`);
    t.diagnostic(`connections on PostgreSQL: ${connections.rows.map((row) => `${row.name} × ${row.n}`).join(', ')}`);
  });

  test('a player an admin disables on one instance is signed out on the other within a second', async () => {
    const [a, b] = instances as [Instance, Instance];
    const player = await registerPlayer(b.url, `disabled-${randomBytes(4).toString('hex')}@example.com`);
    // Served from b's session cache from here on (SESSION_CACHE_S, 30 s by default).
    assert.equal((await player.browser.call(b.url, 'GET', '/api/user')).status, 200);

    const disabled = await workload.operator.browser.call(a.url, 'PUT', `/api/admin/users/${player.id}`, { status: 0 });
    assert.equal(disabled.status, 200, disabled.text);
    const since = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - since < 1000) {
      status = (await player.browser.call(b.url, 'GET', '/api/user')).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(status, 401, `the other instance still served the disabled player ${Date.now() - since} ms later`);
  });

  test('exactly one instance leads the draw scheduler, and the other takes over when it stops', { timeout: 60_000 }, async () => {
    // The scheduler tries to lead every second; the load above gave both instances many tries.
    const claims = instances.map(leads);
    assert.equal(
      claims.reduce((sum, n) => sum + n, 0),
      1,
      `instances that said they lead: ${claims.join(', ')}`,
    );
    const holders = async () =>
      (
        await admin.query<{ n: number }>(
          `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where l.locktype = 'advisory' and l.granted and a.datname = current_database()
              and a.application_name = 'croupier leader: croupier:draw-scheduler'`,
        )
      ).rows[0]!.n;
    assert.equal(await holders(), 1, 'one session holds the leader lock, on a direct connection');

    const leader = instances.find((instance) => leads(instance) === 1)!;
    const other = instances.find((instance) => instance !== leader)!;
    await stopInstance(leader);
    instances.splice(instances.indexOf(leader), 1);
    for (let waited = 0; leads(other) === 0; waited += 100) {
      assert.ok(waited < 30_000, 'the other instance did not take the lead after the leader stopped');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await holders(), 1, 'the lock passed to the other instance');
  });
});
