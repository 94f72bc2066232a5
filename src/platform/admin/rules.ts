import { and, eq, inArray, ne, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client.ts';
import { ValidationError, type FieldErrors } from '../errors.ts';
import type { ListTable } from '../pagination/list.ts';

/** Laravel's attribute name in messages: `bank_id` → "bank id". */
export function label(field: string): string {
  return field.replaceAll('_', ' ');
}

async function anyRow(tx: Db, table: ListTable, where: SQL | undefined): Promise<boolean> {
  const found = await tx.select({ id: table.id }).from(table).where(where).limit(1);
  return found.length > 0;
}

/** Laravel's `exists` rule: an id in a body that names no record is a 422 on that field. */
export async function mustExist(tx: Db, table: ListTable, id: number, field: string): Promise<void> {
  if (!(await anyRow(tx, table, eq(table.id, id)))) throw ValidationError.field(field, `The selected ${label(field)} is invalid.`);
}

/**
 * Laravel's `exists` rule over a list of names (`roles: ["admin", ...]`): the ids of the named
 * rows, once each, or a 422 on `<field>.<index>` for every name that names nothing.
 */
export async function idsByName(
  tx: Db,
  table: ListTable & { name: AnyPgColumn<{ data: string; notNull: true }> },
  names: string[],
  field: string,
): Promise<number[]> {
  const found = await tx.select({ id: table.id, name: table.name }).from(table).where(inArray(table.name, names));
  const byName = new Map(found.map((row) => [row.name, row.id]));
  const errors: FieldErrors = {};
  names.forEach((name, index) => {
    if (!byName.has(name)) errors[`${field}.${index}`] = [`The selected ${field}.${index} is invalid.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return [...new Set(names.map((name) => byName.get(name)!))];
}

/** Laravel's `unique` rule, the record being updated excepted. */
export async function mustBeUnique(
  tx: Db,
  rule: { table: ListTable; column: PgColumn; field: string; value: unknown; exceptId?: number | undefined },
): Promise<void> {
  const except = rule.exceptId === undefined ? undefined : ne(rule.table.id, rule.exceptId);
  if (await anyRow(tx, rule.table, and(eq(rule.column, rule.value), except))) throw takenError(rule.field);
}

export function takenError(field: string): ValidationError {
  return ValidationError.field(field, `The ${label(field)} has already been taken.`);
}
