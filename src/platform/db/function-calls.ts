import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';

/**
 * How TypeScript calls a money function of db/functions/ and reads its answer, so each answer is
 * typed in one place: its outcomes by the declaration beside its caller, its other columns by
 * the table columns they hold (their TypeScript type and decoder), never by a hand-written list.
 * test/wallet/money-outcomes.test.ts holds each function's declaration against its file.
 */

/**
 * The `outcome` column, typed by the outcomes declared for `fn`. An outcome the declaration
 * lacks (the function changed and its caller did not) throws at once rather than fall through
 * the caller's switch as if it were another.
 */
export function outcomeColumn<const O extends readonly string[]>(fn: string, outcomes: O): SQL<O[number]> {
  return sql`outcome`.mapWith((value: string): O[number] => {
    if (!outcomes.includes(value)) throw new Error(`${fn} answered the outcome "${value}", which its declaration lacks.`);
    return value;
  });
}

/** An out column `name`, read as the table column `like` is; null where the function left it null. */
export function resultColumn<C extends PgColumn>(name: string, like: C): SQL<C['_']['data'] | null> {
  return sql`${sql.identifier(name)}`.mapWith(like);
}

/**
 * A table row a function answered as JSON (`to_json(t)`: BIGINTs as numbers, timestamps as
 * text), read as a select of `fields` reads the table: each field's column by its database
 * name, through that column's own decoder.
 */
export function rowFromJson<F extends Record<string, PgColumn>>(fields: F, json: unknown): SelectResultFields<F> {
  const source = (typeof json === 'string' ? JSON.parse(json) : json) as Record<string, unknown>;
  const row: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(fields)) {
    const value = source[column.name];
    row[field] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  // Built field by field from the selection's own columns.
  return row as SelectResultFields<F>;
}

/** A `smallint[]` argument (status codes a function compares with), as one parameter. */
export function smallints(values: readonly number[]): SQL {
  return sql`${`{${values.join(',')}}`}::smallint[]`;
}
