import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { rows, type Database, type Db } from './client.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));
// Any constant works; it only has to be the same for every instance migrating the same database.
const MIGRATION_LOCK = 7_240_331_001;

export interface Migration {
  name: string;
  sql: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ''), sql: readFileSync(`${dir}/${file}`, 'utf8') }));
}

/**
 * Applies the committed SQL migrations that are not yet applied, in one transaction. An advisory
 * lock lets several instances start at once against one PostgreSQL. On PostgreSQL itself, never
 * through a transaction pooler (Database.onDirectConnection): the pooler's timeouts are sized for
 * requests, not for DDL that may wait on the lock or rewrite a table.
 */
export async function migrate(database: Database, migrations = listMigrations()): Promise<string[]> {
  return database.onDirectConnection((db) => applyPending(db, migrations));
}

function applyPending(db: Db, migrations: Migration[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`);
    const done = new Set((await rows<{ name: string }>(tx as never, sql`select name from schema_migrations`)).map((row) => row.name));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      for (const statement of splitStatements(migration.sql)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name) values (${migration.name})`);
      applied.push(migration.name);
    }
    return applied;
  });
}

/**
 * Which of `names` the database has not recorded as applied: one indexed query, cheap enough for
 * a readiness probe. A database without the bookkeeping table throws (undefined table).
 */
export async function pendingMigrations(db: Db, names: string[]): Promise<string[]> {
  const applied = await rows<{ name: string }>(db, sql`select name from schema_migrations where name = any(${sql.param(names)}::text[])`);
  const done = new Set(applied.map((row) => row.name));
  return names.filter((name) => !done.has(name));
}

/**
 * Splits a script into statements on top-level semicolons. The embedded database's extended
 * protocol runs one statement per call; quotes, comments and dollar-quoted bodies are kept whole.
 */
export function splitStatements(script: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < script.length) {
    const rest = script.slice(i);
    const ch = script[i];
    if (rest.startsWith('--')) {
      const end = script.indexOf('\n', i);
      i = end === -1 ? script.length : end + 1;
    } else if (rest.startsWith('/*')) {
      const end = script.indexOf('*/', i + 2);
      i = end === -1 ? script.length : end + 2;
    } else if (ch === "'" || ch === '"') {
      const end = script.indexOf(ch, i + 1);
      i = end === -1 ? script.length : end + 1;
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(rest)?.[0];
      if (tag === undefined) {
        i++;
      } else {
        const end = script.indexOf(tag, i + tag.length);
        i = end === -1 ? script.length : end + tag.length;
      }
    } else if (ch === ';') {
      statements.push(script.slice(start, i));
      i++;
      start = i;
    } else {
      i++;
    }
  }
  statements.push(script.slice(start));
  return statements.filter((statement) => statement.replace(/--[^\n]*/g, '').trim() !== '');
}
