import { sql } from 'drizzle-orm';
import { one, type Db } from '../db/client.ts';
import { ValidationError } from '../errors.ts';

/** Laravel's attribute name in messages: `bank_id` → "bank id". */
export function label(field: string): string {
  return field.replaceAll('_', ' ');
}

/** Laravel's `exists` rule: an id in a body that names no record is a 422 on that field. */
export async function mustExist(tx: Db, table: string, id: number, field: string): Promise<void> {
  const found = await one(tx, sql`select 1 from ${sql.identifier(table)} where id = ${id}`);
  if (found === undefined) throw ValidationError.field(field, `The selected ${label(field)} is invalid.`);
}

/** Laravel's `unique` rule, the record being updated excepted. */
export async function mustBeUnique(
  tx: Db,
  rule: { table: string; column: string; field: string; value: unknown; exceptId?: number | undefined },
): Promise<void> {
  const except = rule.exceptId === undefined ? sql`` : sql`and id <> ${rule.exceptId}`;
  const found = await one(
    tx,
    sql`select 1 from ${sql.identifier(rule.table)} where ${sql.identifier(rule.column)} = ${rule.value} ${except} limit 1`,
  );
  if (found !== undefined) throw takenError(rule.field);
}

export function takenError(field: string): ValidationError {
  return ValidationError.field(field, `The ${label(field)} has already been taken.`);
}

/** ISO 8601 UTC for a timestamp as either driver returns it. */
export function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function isoOrNull(value: Date | string | null): string | null {
  return value === null ? null : iso(value);
}
