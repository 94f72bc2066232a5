// A database migrated before function files existed got its functions from migrations, which
// wrote ledger_apply three times and pay_topup twice. Migrated by today's runner, it must end up
// with exactly the functions and triggers of a fresh database, whatever migration it stopped at.
// The old migrations are read from git as they were committed, and applied as the old runner did.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rows, sql, type Database } from '../../src/platform/db/client.ts';
import { listFunctions } from '../../src/platform/db/functions.ts';
import { listMigrations, migrate, splitStatements, type Migration } from '../../src/platform/db/migrate.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { definitions, type Definitions } from '../helpers/function-files.ts';

/** The last commit whose migrations held the function bodies (before db/functions/). */
const BEFORE_FUNCTION_FILES = 'fcd03791b1654c9b8bb92c27ab67c4ee6d0f5fa1';
const root = fileURLToPath(new URL('../../', import.meta.url));

function git(args: string[]): string | undefined {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  return result.status === 0 ? result.stdout : undefined;
}

function oldMigrations(): Migration[] | undefined {
  const paths = git(['ls-tree', '--name-only', BEFORE_FUNCTION_FILES, 'migrations/'])?.trim().split('\n');
  return paths?.map((path) => ({
    name: path.replace(/^migrations\/|\.sql$/g, ''),
    sql: git(['show', `${BEFORE_FUNCTION_FILES}:${path}`])!,
  }));
}

/** What src/platform/db/migrate.ts did before function files: the migrations and nothing else. */
async function migrateTheOldWay(database: Database, migrations: Migration[]): Promise<void> {
  await database.db.transaction(async (tx) => {
    await tx.execute(sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`);
    for (const migration of migrations) {
      for (const statement of splitStatements(migration.sql)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name) values (${migration.name})`);
    }
  });
}

const old = oldMigrations();

describe(
  'a database migrated before function files',
  { skip: old === undefined && `needs git and commit ${BEFORE_FUNCTION_FILES}` },
  () => {
    let fresh: TestDatabase;
    let expected: Definitions;
    before(async () => {
      fresh = await freshDatabase();
      expected = await definitions(fresh.database.db);
    });
    after(() => fresh.drop());

    // Where a function's version changed: wallet_abort still there; ledger_apply's first version
    // and pay_topup's first row type; ledger_apply's second; every migration of that commit.
    const stops = ['20261123100200_wallet_storage', '20261124090000_pay_topup', '20261125110000_draws', undefined];
    for (const stop of stops) {
      test(`migrated up to ${stop ?? 'its last migration'}, it upgrades to the functions and triggers of a fresh database`, async () => {
        const upgraded = await freshDatabase(undefined, { migrated: false });
        try {
          const applied = old!.filter((migration) => stop === undefined || migration.name <= stop);
          await migrateTheOldWay(upgraded.database, applied);
          const before = await rows<{ name: string }>(
            upgraded.database.db,
            sql`select proname as name from pg_proc where pronamespace = current_schema()::regnamespace`,
          );
          assert.ok(before.length > 0, 'the old migrations made functions');

          const pending = listMigrations()
            .map((migration) => migration.name)
            .filter((name) => !applied.some((migration) => migration.name === name));
          const files = listFunctions().map((file) => `db/functions/${file.name}.sql`);
          // A file a migration calls comes just before it; every file comes once.
          assert.deepEqual(
            (await migrate(upgraded.database)).sort(),
            [...pending, ...files].sort(),
            'every file is applied the first time',
          );
          assert.deepEqual(await definitions(upgraded.database.db), expected);
          assert.deepEqual(await migrate(upgraded.database), []);
        } finally {
          await upgraded.drop();
        }
      });
    }
  },
);
