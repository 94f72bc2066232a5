import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/platform/db/client.ts';
import { listMigrations, migrate, type Migration } from '../../src/platform/db/migrate.ts';
import { templatesIn } from '../../src/platform/db/template.ts';
import { hasTemplate, templateName } from './postgres-template.ts';

/** Which database this run of the suite uses: `npm test` runs it once per backend. */
export const backend: 'pglite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

function postgresUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL.');
  return url;
}

export interface TestDatabase {
  database: Database;
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database on the
 * PostgreSQL server of TEST_DATABASE_URL, dropped afterwards. `migrations` (default: all) lets a
 * test of a migration start from the schema before it; `migrated: false` leaves it empty.
 */
export async function freshDatabase(migrations: Migration[] = listMigrations(), { migrated = true } = {}): Promise<TestDatabase> {
  if (backend === 'pglite') {
    // Today's whole schema starts from its migrated template (npm test makes it); a test of a
    // migration, or of an empty database, from the initialised one.
    const template = wholeSchema(migrations, migrated) ? undefined : templatesIn().initialised;
    const database = await openDatabase({
      databaseUrl: undefined,
      dataDir: '',
      inMemory: true,
      ...(template === undefined ? {} : { template }),
    });
    const fresh = { database, url: undefined, drop: () => database.close() };
    if (migrated) await migratedOrDropped(fresh, migrations);
    return fresh;
  }
  const admin = new URL(postgresUrl());
  const name = `croupier_test_${randomBytes(6).toString('hex')}`;
  // Today's whole schema is a copy of the run's migrated template (postgres-template.ts), when there is one.
  const copied = wholeSchema(migrations, migrated) && (await hasTemplate(admin.toString()));
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(copied ? `create database ${name} template ${templateName()}` : `create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 10 });
  const fresh = {
    database,
    url: url.toString(),
    async drop() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: admin.toString() });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
  if (migrated) await migratedOrDropped(fresh, migrations);
  return fresh;
}

/** Whether a test asks for today's whole schema (not a migration's test, not an empty database). */
function wholeSchema(migrations: Migration[], migrated: boolean): boolean {
  const all = listMigrations().map((migration) => migration.name);
  return migrated && migrations.length === all.length && migrations.every((migration, index) => migration.name === all[index]);
}

/**
 * Migrates a fresh database, or closes and drops it and throws: a database left open keeps the
 * test file's process alive, and the runner would wait for it until its timeout instead of
 * reporting the migration's error.
 */
async function migratedOrDropped(fresh: TestDatabase, migrations: Migration[]): Promise<void> {
  try {
    await migrate(fresh.database, migrations);
  } catch (error) {
    await fresh.drop().catch(() => {});
    throw error;
  }
}
