import type { SelectedFields } from 'drizzle-orm/pg-core';
import { Type, type Static, type TObject } from 'typebox';
import { toUnits } from '../money.ts';
import type { RowOf } from '../pagination/list.ts';

/** The two instants every record ends with, spread into its schema. */
export const timestamps = {
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

function camelCase(field: string): string {
  return field.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** A column value as JSON carries it: instants as ISO 8601 UTC, money (the only bigints) in currency units. */
function jsonValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return toUnits(value);
  return value;
}

/**
 * The presenter of a record that is its columns: each snake_case field of `record` is the row's
 * camelCase field of the same name (`created_at` ← `createdAt`). Fields the record does not name
 * never leave the server. A record field the selection lacks is a mistake in the declaration,
 * reported when the routes are registered rather than on the first request.
 */
export function columnPresenter<R extends TObject, S extends SelectedFields>(record: R, select: S): (row: RowOf<S>) => Static<R> {
  const fields = Object.keys(record.properties).map((field) => {
    const key = camelCase(field);
    if (!(key in select)) throw new Error(`The record field ${field} has no ${key} in the selection; declare a presenter.`);
    return [field, key] as const;
  });
  return (row) => {
    const values: Record<string, unknown> = row;
    const json: Record<string, unknown> = {};
    for (const [field, key] of fields) json[field] = jsonValue(values[key]);
    // Built field by field from the record's own property list.
    return json as Static<R>;
  };
}
