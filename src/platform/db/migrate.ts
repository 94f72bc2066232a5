import { sql } from 'drizzle-orm';
import { errorCode, rows, type Database, type Db } from './client.ts';
import { calledBy, functionPath, listFunctions, type FunctionFile } from './functions.ts';
import { listMigrations, type Migration } from './migration-files.ts';

export { listMigrations, type Migration };
// Any constant works; it only has to be the same for every instance migrating the same database.
export const MIGRATION_LOCK = 7_240_331_001;

/**
 * Applies the committed SQL migrations that are not yet applied, then the function files
 * (db/functions/, functions.ts) whose text the database has not recorded, all in one
 * transaction; a file a migration calls is applied just before that migration. Answers what it
 * applied, in order: migration names and function files' paths. An advisory lock lets several
 * instances start at once against one PostgreSQL. On PostgreSQL itself, never through a
 * transaction pooler (Database.onDirectConnection): the pooler's timeouts are sized for
 * requests, not for DDL that may wait on the lock or rewrite a table.
 */
export async function migrate(
  database: Database,
  migrations = listMigrations(),
  functions: FunctionFile[] = listFunctions(),
): Promise<string[]> {
  return database.onDirectConnection((db) => applyPending(db, migrations, functions));
}

function applyPending(db: Db, migrations: Migration[], functions: FunctionFile[]): Promise<string[]> {
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
      // A migration that calls a function (a backfill through today's rule) finds its file applied.
      const called = calledBy(migration.sql, functions);
      if (called.length > 0) applied.push(...(await applyFunctions(tx, called)));
      for (const statement of splitStatements(migration.sql)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name) values (${migration.name})`);
      applied.push(migration.name);
    }
    // After the migrations, which make the tables the functions read (docs/decisions/0006).
    applied.push(...(await applyFunctions(tx, functions)));
    return applied;
  });
}

async function applyFunctions(tx: Db, files: FunctionFile[]): Promise<string[]> {
  await tx.execute(sql`create table if not exists schema_functions (
    name text primary key,
    hash text not null,
    applied_at timestamptz not null default now()
  )`);
  const recorded = new Map(
    (await rows<{ name: string; hash: string }>(tx, sql`select name, hash from schema_functions`)).map((row) => [row.name, row.hash]),
  );
  const changed = files.filter((file) => recorded.get(file.name) !== file.hash);
  if (changed.length === 0) return [];
  const existing = await overloads(
    tx,
    changed.map((file) => file.name),
  );
  for (const file of changed) await applyFunction(tx, file, existing.get(file.name) ?? []);
  await tx.execute(sql`insert into schema_functions (name, hash)
    select * from unnest(${sql.param(changed.map((file) => file.name))}::text[], ${sql.param(changed.map((file) => file.hash))}::text[])
    on conflict (name) do update set hash = excluded.hash, applied_at = now()`);
  return changed.map((file) => functionPath(file.name));
}

interface Overload {
  oid: string;
  signature: string;
}

/** The functions of the schema by each of these names (one name can have several signatures). */
async function overloads(tx: Db, names: string[]): Promise<Map<string, Overload[]>> {
  const found = await rows<Overload & { name: string }>(
    tx,
    sql`select p.proname as name, p.oid::text as oid, p.oid::regprocedure::text as signature from pg_proc p
      where p.proname = any(${sql.param(names)}::text[]) and p.pronamespace = current_schema()::regnamespace`,
  );
  const byName = new Map<string, Overload[]>();
  for (const { name, ...overload } of found) byName.set(name, [...(byName.get(name) ?? []), overload]);
  return byName;
}

/**
 * Runs a function file's statements. `create or replace` keeps the function (its id, so calls
 * planned in other sessions carry on, and the triggers that run it) whenever it can. It cannot
 * change what a function returns, OUT columns included, or its parameters' names (42P13): then the
 * function is dropped and created again, without cascade, so anything outside the file that
 * depends on it stops the migration instead of vanishing with it. PL/pgSQL and language-sql
 * bodies that call it are no such dependents: they find the new one by name. New parameter types
 * create a second function beside the old one, which is dropped: the file is the only definition.
 */
async function applyFunction(tx: Db, file: FunctionFile, before: Overload[]): Promise<void> {
  const statements = splitStatements(file.sql);
  // A file is applied where an older migration calls it (or a function naming it), before later
  // migrations made the tables today's body reads: a language-sql body is then checked against a
  // schema it was not written for. Bodies are checked when called instead, as PL/pgSQL's are.
  const run = async () => {
    await tx.execute(sql`select set_config('check_function_bodies', 'off', true)`);
    for (const statement of statements) await tx.execute(sql.raw(statement));
    await tx.execute(sql`select set_config('check_function_bodies', 'on', true)`);
  };
  // A function new to the database replaces nothing (a fresh database: every file).
  if (before.length === 0) return run();
  const drop = async (functions: Overload[]) => {
    for (const old of functions) await tx.execute(sql.raw(`drop function ${old.signature}`));
  };
  await tx.execute(sql`savepoint function_file`);
  let left = before;
  try {
    await run();
  } catch (error) {
    if (errorCode(error) !== '42P13') throw error;
    await tx.execute(sql`rollback to savepoint function_file`);
    await drop(before);
    await run();
    left = [];
  }
  await tx.execute(sql`release savepoint function_file`);
  const after = (await overloads(tx, [file.name])).get(file.name) ?? [];
  if (after.some((created) => !before.some((old) => old.oid === created.oid))) await drop(left);
}

/**
 * Which of the migrations `names`, and of the function files `functions` (by name), the database
 * has never applied: one indexed query, cheap enough for a readiness probe. A function file whose
 * text differs from the one recorded is not pending here: during a rolling deploy that is the
 * other release's text, and both run on it (docs/decisions/0006). A database without the
 * bookkeeping tables throws (undefined table).
 */
export async function pendingMigrations(db: Db, names: string[], functions: string[] = []): Promise<string[]> {
  const applied = await rows<{ kind: string; name: string }>(
    db,
    sql`select 'migration' as kind, name from schema_migrations where name = any(${sql.param(names)}::text[])
      union all select 'function', name from schema_functions where name = any(${sql.param(functions)}::text[])`,
  );
  const done = new Set(applied.map((row) => `${row.kind}:${row.name}`));
  return [
    ...names.filter((name) => !done.has(`migration:${name}`)),
    ...functions.filter((name) => !done.has(`function:${name}`)).map(functionPath),
  ];
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
