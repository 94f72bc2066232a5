// The SQL migrations are the schema; the Drizzle tables only describe it (drizzle-kit is not
// used). This keeps the description true: a migration that adds, drops or retypes a column
// without the same change in the table file fails here, on both databases.
import assert from 'node:assert/strict';
import { globSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { rows, type Db } from '../../src/platform/db/client.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const SRC = new URL('../../src/', import.meta.url);
// Where tables are declared, by convention: `tables.ts`, `table.ts`, `<what>-table.ts` or `<what>-tables.ts`.
const TABLE_FILES = '**/{tables,table,*-table,*-tables}.ts';

async function declaredTables(): Promise<Map<string, PgTable>> {
  const tables = new Map<string, PgTable>();
  for (const file of globSync(TABLE_FILES, { cwd: fileURLToPath(SRC) })) {
    const module = (await import(new URL(file, SRC).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (!is(value, PgTable)) continue;
      const { name } = getTableConfig(value);
      assert.ok(!tables.has(name), `table ${name} is declared twice (again in ${file})`);
      tables.set(name, value);
    }
  }
  return tables;
}

interface ColumnInfo {
  table_name: string;
  column_name: string;
  data_type: string;
  character_maximum_length: number | null;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  is_identity: 'YES' | 'NO';
  identity_generation: 'ALWAYS' | 'BY DEFAULT' | null;
}

interface ConstraintInfo {
  table_name: string;
  name: string;
  type: 'p' | 'u' | 'f';
  columns: string[];
  foreign_table: string | null;
  foreign_columns: string[] | null;
  on_update: string;
  on_delete: string;
}

/** Drizzle spells a few types differently from information_schema. */
function sqlType(column: ColumnInfo): string {
  if (column.data_type === 'character') return `char(${column.character_maximum_length})`;
  if (column.data_type === 'character varying') return `varchar(${column.character_maximum_length})`;
  if (column.data_type === 'timestamp without time zone') return 'timestamp';
  return column.data_type;
}

function describeColumn(name: string, type: string, notNull: boolean, hasDefault: boolean, identity: string | undefined): string {
  return [name, type, notNull ? 'not null' : 'null', hasDefault ? 'default' : '', identity ? `identity ${identity}` : '']
    .filter(Boolean)
    .join(' ');
}

function databaseColumns(columns: ColumnInfo[]): string[] {
  return columns
    .map((column) =>
      describeColumn(
        column.column_name,
        sqlType(column),
        column.is_nullable === 'NO',
        column.column_default !== null,
        column.is_identity === 'YES' ? column.identity_generation!.toLowerCase() : undefined,
      ),
    )
    .sort();
}

const IDENTITY = { always: 'always', byDefault: 'by default' } as const;

function drizzleColumns(table: PgTable): string[] {
  return getTableConfig(table)
    .columns.map((column) =>
      describeColumn(
        column.name,
        column.getSQLType(),
        column.notNull,
        // `default` is a database default; `$defaultFn` runs in JS and is no part of the schema.
        column.default !== undefined,
        column.generatedIdentity === undefined ? undefined : IDENTITY[column.generatedIdentity.type],
      ),
    )
    .sort();
}

const ACTIONS: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

function foreignKey(columns: string[], table: string, foreignColumns: string[], onUpdate: string, onDelete: string): string {
  return `(${columns.join(', ')}) references ${table} (${foreignColumns.join(', ')}) on update ${onUpdate} on delete ${onDelete}`;
}

function drizzleConstraints(table: PgTable): { primaryKey: string[]; uniques: string[]; foreignKeys: string[] } {
  const config = getTableConfig(table);
  const primaryKey =
    config.primaryKeys[0]?.columns.map((column) => column.name) ??
    config.columns.filter((column) => column.primary).map((column) => column.name);
  const uniques = [
    ...config.uniqueConstraints.map((unique) => `${unique.getName()} (${unique.columns.map((column) => column.name).join(', ')})`),
    ...config.columns.filter((column) => column.isUnique).map((column) => `${column.uniqueName} (${column.name})`),
  ];
  const foreignKeys = config.foreignKeys.map((key) => {
    const reference = key.reference();
    return foreignKey(
      reference.columns.map((column) => column.name),
      getTableConfig(reference.foreignTable).name,
      reference.foreignColumns.map((column) => column.name),
      key.onUpdate ?? 'no action',
      key.onDelete ?? 'no action',
    );
  });
  return { primaryKey, uniques, foreignKeys };
}

/**
 * `name (columns)` of each index a Drizzle table declares, marked unique or partial (plain column
 * indexes; an expression would fail the check; a partial index's condition is not compared).
 */
function drizzleIndexes(table: PgTable): string[] {
  return getTableConfig(table).indexes.map((index) => {
    const columns = index.config.columns.map((column) =>
      'name' in column && typeof column.name === 'string' ? column.name : '<expression>',
    );
    const kind = `${index.config.unique ? ' unique' : ''}${index.config.where === undefined ? '' : ' partial'}`;
    return `${index.config.name ?? '<unnamed>'} (${columns.join(', ')})${kind}`;
  });
}

describe('Drizzle tables and the migrated schema', () => {
  let testDb: TestDatabase;
  let db: Db;
  let tables: Map<string, PgTable>;

  before(async () => {
    testDb = await freshDatabase();
    db = testDb.database.db;
    tables = await declaredTables();
  });
  after(() => testDb.drop());

  async function columnsOf(): Promise<Map<string, ColumnInfo[]>> {
    const all = await rows<ColumnInfo>(
      db,
      sql`select c.table_name, c.column_name, c.data_type, c.character_maximum_length::int as character_maximum_length,
          c.is_nullable, c.column_default, c.is_identity, c.identity_generation
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema() and t.table_type = 'BASE TABLE' and c.table_name not in ('schema_migrations', 'schema_functions')`,
    );
    const byTable = new Map<string, ColumnInfo[]>();
    for (const column of all) byTable.set(column.table_name, [...(byTable.get(column.table_name) ?? []), column]);
    return byTable;
  }

  test('every table of the migrated database has a Drizzle table, and no Drizzle table is missing from it', async () => {
    const migrated = [...(await columnsOf()).keys()].sort();
    assert.deepEqual([...tables.keys()].sort(), migrated);
  });

  test("every Drizzle table has exactly its table's columns, with their types, nullability, defaults and identity", async () => {
    const migrated = await columnsOf();
    // One comparison of every table, so a failure shows every difference at once.
    const declared = Object.fromEntries([...tables].map(([name, table]) => [name, drizzleColumns(table)]));
    const actual = Object.fromEntries([...tables.keys()].map((name) => [name, databaseColumns(migrated.get(name) ?? [])]));
    assert.deepEqual(declared, actual);
  });

  test('the primary key of every Drizzle table, and every unique and foreign key it declares, exist in the database', async () => {
    const constraints = await rows<ConstraintInfo>(
      db,
      sql`select t.relname as table_name, c.conname as name, c.contype::text as type,
          (select json_agg(a.attname order by k.i) from unnest(c.conkey) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n) as columns,
          ft.relname as foreign_table,
          (select json_agg(a.attname order by k.i) from unnest(c.confkey) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n) as foreign_columns,
          c.confupdtype::text as on_update, c.confdeltype::text as on_delete
        from pg_constraint c
        join pg_class t on t.oid = c.conrelid
        left join pg_class ft on ft.oid = c.confrelid
        where t.relnamespace = current_schema()::regnamespace and c.contype in ('p', 'u', 'f')`,
    );
    const problems: string[] = [];
    for (const [name, table] of tables) {
      const own = constraints.filter((constraint) => constraint.table_name === name);
      const declared = drizzleConstraints(table);
      const primaryKey = own.find((constraint) => constraint.type === 'p')?.columns ?? [];
      if (declared.primaryKey.join(', ') !== primaryKey.join(', ')) {
        problems.push(`${name}: primary key (${declared.primaryKey.join(', ')}) is (${primaryKey.join(', ')}) in the database`);
      }
      const uniques = own.filter((constraint) => constraint.type === 'u').map((unique) => `${unique.name} (${unique.columns.join(', ')})`);
      for (const unique of declared.uniques.filter((declaredUnique) => !uniques.includes(declaredUnique))) {
        problems.push(`${name}: unique ${unique} is not in the database, which has: ${uniques.join('; ')}`);
      }
      const foreignKeys = own
        .filter((constraint) => constraint.type === 'f')
        .map((key) => foreignKey(key.columns, key.foreign_table!, key.foreign_columns!, ACTIONS[key.on_update]!, ACTIONS[key.on_delete]!));
      for (const key of declared.foreignKeys.filter((declaredKey) => !foreignKeys.includes(declaredKey))) {
        problems.push(`${name}: foreign key ${key} is not in the database, which has: ${foreignKeys.join('; ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('every index a Drizzle table declares exists in the database, on the same columns in the same order', async () => {
    const indexes = await rows<{ table_name: string; name: string; columns: string[]; unique: boolean; partial: boolean }>(
      db,
      sql`select t.relname as table_name, i.relname as name, x.indisunique as unique, x.indpred is not null as partial,
          (select json_agg(a.attname order by k.i) from unnest(x.indkey::int2[]) with ordinality k(n, i)
            join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.n) as columns
        from pg_index x
        join pg_class i on i.oid = x.indexrelid
        join pg_class t on t.oid = x.indrelid
        where t.relnamespace = current_schema()::regnamespace`,
    );
    const problems: string[] = [];
    for (const [name, table] of tables) {
      const own = indexes
        .filter((index) => index.table_name === name)
        .map((index) => `${index.name} (${index.columns.join(', ')})${index.unique ? ' unique' : ''}${index.partial ? ' partial' : ''}`);
      for (const declared of drizzleIndexes(table).filter((index) => !own.includes(index))) {
        problems.push(`${name}: index ${declared} is not in the database, which has: ${own.join('; ')}`);
      }
    }
    assert.deepEqual(problems, []);
  });
});
