// Every SQL function lives in one file, db/functions/<name>.sql, which `migrate` applies after
// the migrations whenever its text changed (docs/decisions/0006). These tests migrate real
// databases with real and with changed files and look at what PostgreSQL then holds and does.
import assert from 'node:assert/strict';
import type { SQL } from 'drizzle-orm';
import { after, before, describe, test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import pg from 'pg';
import { errorCode, one, openDatabase, rows, sql, type Db } from '../../src/platform/db/client.ts';
import { listFunctions, type FunctionFile } from '../../src/platform/db/functions.ts';
import { listMigrations, migrate, MIGRATION_LOCK } from '../../src/platform/db/migrate.ts';
import { scratch } from '../helpers/cli.ts';
import { backend, freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { fileBody, functionFiles, withChangedFile } from '../helpers/function-files.ts';

async function value<T>(db: Db, query: SQL): Promise<T> {
  return (await one<{ value: T }>(db, query))!.value;
}

async function refusal(db: Db, query: SQL): Promise<string> {
  try {
    await db.execute(query);
  } catch (error) {
    let current: unknown = error;
    while ((current as { cause?: unknown }).cause !== undefined) current = (current as { cause: unknown }).cause;
    return `${errorCode(error)}: ${(current as Error).message}`;
  }
  throw new Error('the statement was not refused');
}

/** Each function's row version: `create or replace` writes a new one, an untouched function keeps it. */
async function versions(db: Db): Promise<Map<string, string>> {
  const all = await rows<{ name: string; version: string }>(
    db,
    sql`select proname as name, xmin::text as version from pg_proc where pronamespace = current_schema()::regnamespace`,
  );
  return new Map(all.map((row) => [row.name, row.version]));
}

describe('function files (db/functions/)', () => {
  const dirs = scratch('croupier-functions-');
  let testDb: TestDatabase;
  let db: Db;
  const files = listFunctions();
  before(async () => {
    testDb = await freshDatabase();
    db = testDb.database.db;
  });
  after(() => testDb.drop());

  test('a fresh database has exactly the functions of db/functions/, each with its file body, recorded by its text', async () => {
    const functions = await rows<{ name: string; body: string }>(
      db,
      sql`select proname as name, prosrc as body from pg_proc where pronamespace = current_schema()::regnamespace order by proname`,
    );
    assert.deepEqual(
      functions.map((row) => row.name),
      files.map((file) => file.name).sort(),
    );
    for (const file of files) assert.equal(functions.find((row) => row.name === file.name)!.body, fileBody(file), file.name);
    const recorded = await rows<{ name: string; hash: string }>(db, sql`select name, hash from schema_functions order by name`);
    assert.deepEqual(
      recorded,
      files.map(({ name, hash }) => ({ name, hash })).sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  });

  test('on a fresh database the triggers of the function files refuse to edit the ledger or a settings version', async () => {
    assert.equal(await refusal(db, sql`truncate ledger_entries`), '55000: ledger_entries is append-only (TRUNCATE refused)');
    assert.equal(await refusal(db, sql`delete from settings`), '55000: settings versions are append-only (DELETE refused)');
  });

  test('a changed file is applied by the next migrate only, and the unchanged ones are left as they are', async () => {
    const changed = withChangedFile(dirs.dataDir(), 'topup_gift_key', (text) => text.replace("':gift'", "':present'"));
    const untouched = await versions(db);

    assert.deepEqual(await migrate(testDb.database, listMigrations(), changed), ['db/functions/topup_gift_key.sql']);
    assert.equal(await value(db, sql`select topup_gift_key(7) as value`), 'topup:7:present');
    const now = await versions(db);
    for (const [name, version] of untouched) {
      if (name === 'topup_gift_key') assert.notEqual(now.get(name), version, 'topup_gift_key was written again');
      else assert.equal(now.get(name), version, `${name} was not written again`);
    }
    assert.deepEqual(await migrate(testDb.database, listMigrations(), changed), []);

    // Back to the committed file: changed again, so applied again.
    assert.deepEqual(await migrate(testDb.database), ['db/functions/topup_gift_key.sql']);
    assert.equal(await value(db, sql`select topup_gift_key(7) as value`), 'topup:7:gift');
  });

  test('a function whose result or parameter types changed is replaced, and the functions calling it and the trigger running it carry on', async () => {
    const dir = dirs.dataDir();
    const table = { name: '29990101000000_probe_rows', sql: 'create table probe_rows (id integer primary key, cents integer not null)' };
    const price = (parameters: string, result: string, body: string) => ({
      probe_price: `create or replace function probe_price(${parameters}) returns ${result} language sql immutable as $$ ${body} $$;`,
    });
    const callers = {
      probe_quote: `create or replace function probe_quote(p_cents integer) returns text language plpgsql as $$
        begin return 'quote ' || probe_price(p_cents); end; $$;`,
      probe_label: `create or replace function probe_label(p_cents integer) returns text language sql as $$
        select 'label ' || probe_price(p_cents) $$;`,
      probe_rows_guard: `create or replace function probe_rows_guard() returns trigger language plpgsql as $$
        begin raise exception 'kept at %', probe_price(old.cents); end; $$;
        create or replace trigger probe_rows_no_delete before delete on probe_rows for each row execute function probe_rows_guard();`,
    };
    const seen = async () => ({
      quote: await value(db, sql`select probe_quote(5) as value`),
      label: await value(db, sql`select probe_label(5) as value`),
      guard: await refusal(db, sql`delete from probe_rows`),
      signatures: (
        await rows<{ signature: string }>(
          db,
          sql`select oid::regprocedure::text || ' -> ' || pg_get_function_result(oid) as signature from pg_proc where proname = 'probe_price'`,
        )
      ).map((row) => row.signature),
    });
    /** What the callers and the trigger say when probe_price(5) is `price`, and its one signature. */
    const carryOn = (price: string, signature: string) => ({
      quote: `quote ${price}`,
      label: `label ${price}`,
      guard: `P0001: kept at ${price}`,
      signatures: [signature],
    });

    const first = functionFiles(dir, { ...price('p_cents integer', 'integer', 'select p_cents * 2'), ...callers });
    assert.equal(first[0]!.name, 'probe_price', 'what the others name comes first');
    assert.equal((await migrate(testDb.database, [table], first)).length, 5);
    await db.execute(sql`insert into probe_rows (id, cents) values (1, 5)`);
    assert.deepEqual(await seen(), carryOn('10', 'probe_price(integer) -> integer'));

    // Another result type: `create or replace` refuses it (42P13), so the function is created anew.
    const numeric = functionFiles(dir, price('p_cents integer', 'numeric', 'select p_cents * 2.5'));
    assert.deepEqual(await migrate(testDb.database, [table], numeric), ['db/functions/probe_price.sql']);
    assert.deepEqual(await seen(), carryOn('12.5', 'probe_price(integer) -> numeric'));

    // Another parameter type: a second function beside the first, which goes.
    const widened = functionFiles(dir, price('p_cents bigint', 'numeric', 'select p_cents * 3.5'));
    assert.deepEqual(await migrate(testDb.database, [table], widened), ['db/functions/probe_price.sql']);
    assert.deepEqual(await seen(), carryOn('17.5', 'probe_price(bigint) -> numeric'));
  });

  test("a migration that calls a function finds its file applied first, with today's text, and what that one calls", async () => {
    const dir = dirs.dataDir();
    const doubled = (factor: number) => ({
      probe_doubled: `create or replace function probe_doubled(p integer) returns integer language sql as $$ select probe_times(p, ${factor}) $$;`,
    });
    const times = {
      probe_times: 'create or replace function probe_times(p integer, f integer) returns integer language sql as $$ select p * f $$;',
    };
    const backfill = (name: string, input: number) => ({
      name,
      sql: `insert into probe_backfilled (value) select probe_doubled(${input})`,
    });
    const table = { name: '29990101000200_probe_backfilled', sql: 'create table probe_backfilled (value integer not null)' };

    const first = [table, backfill('29990101000300_probe_backfill', 21)];
    assert.deepEqual(await migrate(testDb.database, first, functionFiles(dir, { ...times, ...doubled(2) })), [
      '29990101000200_probe_backfilled',
      'db/functions/probe_times.sql',
      'db/functions/probe_doubled.sql',
      '29990101000300_probe_backfill',
    ]);
    // On a database that has the function, a changed file is applied before the migration too.
    const second = [...first, backfill('29990101000400_probe_backfill_again', 1)];
    assert.deepEqual(await migrate(testDb.database, second, functionFiles(dir, doubled(3))), [
      'db/functions/probe_doubled.sql',
      '29990101000400_probe_backfill_again',
    ]);
    assert.deepEqual(await rows(db, sql`select value from probe_backfilled order by value`), [{ value: 3 }, { value: 42 }]);
  });

  test('a changed function that something outside its file depends on stops the migration, and nothing of it stays', async () => {
    const dir = dirs.dataDir();
    const rate = (result: string) => ({
      probe_rate: `create or replace function probe_rate() returns ${result} language sql as $$ select 7 $$;`,
    });
    const view = { name: '29990101000100_probe_rates', sql: 'create view probe_rates as select probe_rate() as rate' };
    await migrate(testDb.database, [], functionFiles(dir, rate('integer')));
    await migrate(testDb.database, [view], []);
    const recorded = await value(db, sql`select hash as value from schema_functions where name = 'probe_rate'`);

    await assert.rejects(migrate(testDb.database, [], functionFiles(dir, rate('bigint'))), (error) => errorCode(error) === '2BP01');
    assert.equal(await value(db, sql`select pg_get_function_result('probe_rate'::regproc) as value`), 'integer');
    assert.equal(await value(db, sql`select hash as value from schema_functions where name = 'probe_rate'`), recorded);
    assert.equal(await value(db, sql`select rate as value from probe_rates`), 7);
  });
});

describe('function files migrated from two connections at once', { skip: backend !== 'postgres' && 'needs PostgreSQL' }, () => {
  const dirs = scratch('croupier-functions-');

  /**
   * `work` on two connections at the same moment: a third holds the migration lock until both
   * wait for it, then lets go.
   */
  async function twoConnections(testDb: TestDatabase, work: (each: TestDatabase['database']) => Promise<string[]>): Promise<string[][]> {
    const other = await openDatabase({ databaseUrl: testDb.url!, dataDir: '', poolSize: 2 });
    const holder = new pg.Client({ connectionString: testDb.url! });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const both = Promise.all([work(testDb.database), work(other)]);
      const waiting = async () =>
        Number(
          (await holder.query<{ n: string }>(`select count(*) as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0]!.n,
        );
      while ((await waiting()) < 2) await setTimeout(10);
      await holder.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      return await both;
    } finally {
      await holder.end();
      await other.close();
    }
  }

  test('on an empty database, one applies every migration and function file and the other finds nothing left', async () => {
    const testDb = await freshDatabase(undefined, { migrated: false });
    try {
      const answers = await twoConnections(testDb, (database) => migrate(database));
      const everything = [
        ...listMigrations().map((migration) => migration.name),
        ...listFunctions().map((file) => `db/functions/${file.name}.sql`),
      ];
      assert.deepEqual(
        answers.map((applied) => applied.length).sort((a, b) => a - b),
        [0, everything.length],
      );
    } finally {
      await testDb.drop();
    }
  });

  test('a changed file is applied by one of them only', async () => {
    const testDb = await freshDatabase();
    try {
      const changed: FunctionFile[] = withChangedFile(dirs.dataDir(), 'topup_status', (text) => `${text}-- read again\n`);
      const answers = await twoConnections(testDb, (database) => migrate(database, listMigrations(), changed));
      assert.deepEqual(answers.map((applied) => applied.join()).sort(), ['', 'db/functions/topup_status.sql']);
    } finally {
      await testDb.drop();
    }
  });
});
