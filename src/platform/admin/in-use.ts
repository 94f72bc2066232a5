/**
 * A record that other records' history refers to is not deleted (docs/api.md section 4): the delete
 * is a 409 whose message says what keeps the record and, when it has a status, to disable it
 * instead. Never a 500, whichever table refers to it.
 *
 * The database is the judge. A foreign key that restricts the delete (ON DELETE RESTRICT or NO
 * ACTION) refuses it with SQLSTATE 23001 or 23503 and names the referring table, on PostgreSQL and
 * PGlite alike; the refusal aborts the delete's transaction, operation-log row included, and is
 * mapped here. That is race-free: a reference committed while the delete waited for its row lock
 * refuses it too. What the schema cascades (a role's permission and user links, a user's sessions
 * and bank cards) belongs to the record and goes with it.
 *
 * A few tables refer to a record without a foreign key, kept off a money hot path on purpose
 * (their migrations say why). A resource names those columns (`unkeyed`): they are looked up
 * under the record's row lock, before the delete, each through an index that leads with it.
 */
import { eq } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { errorCode, type Db } from '../db/client.ts';
import { ConflictError } from '../errors.ts';
import type { ListTable } from '../pagination/list.ts';

export interface InUse {
  /** What the message calls the record: "The <record> has draws and cannot be deleted". */
  record: string;
  /** Each table whose foreign key keeps the record → what its rows say of it, e.g. `{ draws: 'has draws' }`. */
  keptBy: Record<string, string>;
  /** Columns that refer to the record without a foreign key, each with what its rows say of it. */
  unkeyed?: { column: PgColumn; says: string }[];
  /** The record has a status an operator can set to disabled: the message says to do that instead. */
  disable?: boolean;
}

/** A foreign key that refused a delete: SQLSTATE 23503 (NO ACTION) or 23001 (RESTRICT). */
const REFUSED_BY_REFERENCE = new Set(['23503', '23001']);

/** The table whose rows refused the delete, looking through drizzle's wrapper; undefined for any other error. */
export function referringTable(error: unknown): string | undefined {
  if (!REFUSED_BY_REFERENCE.has(errorCode(error) ?? '')) return undefined;
  for (let current: unknown = error; current !== undefined && current !== null; current = (current as { cause?: unknown }).cause) {
    const table = (current as { table?: unknown }).table;
    if (typeof table === 'string' && table !== '') return table;
  }
  return '';
}

/** The 409 of a delete that `referrer` keeps from happening. An undeclared table still gets a 409 that names it. */
export function inUseError(inUse: InUse | undefined, referrer: string): ConflictError {
  const says = inUse?.keptBy[referrer] ?? (referrer === '' ? 'is still referred to' : `has ${referrer.replaceAll('_', ' ')}`);
  return keptError(inUse, says);
}

function keptError(inUse: InUse | undefined, says: string): ConflictError {
  return new ConflictError(keptMessage(inUse, says), 'record_in_use');
}

function keptMessage(inUse: InUse | undefined, says: string): string {
  const instead = inUse?.disable === true ? '; disable it instead' : '';
  return `The ${inUse?.record ?? 'record'} ${says} and cannot be deleted${instead}.`;
}

/** Every message a resource's delete may be refused with for what refers to its record. */
export function keptMessages(inUse: InUse): string[] {
  return [...Object.values(inUse.keptBy), ...(inUse.unkeyed ?? []).map((column) => column.says)].map((says) => keptMessage(inUse, says));
}

/**
 * Deletes one row inside the caller's transaction (the row already locked), or throws the 409 of
 * what keeps it. The transaction is aborted by then; the caller's rollback ends it.
 */
export async function deleteUnlessKept(tx: Db, table: ListTable, id: number, inUse: InUse | undefined): Promise<void> {
  for (const { column, says } of inUse?.unkeyed ?? []) {
    const found = await tx.select({ one: column }).from(column.table).where(eq(column, id)).limit(1);
    if (found.length > 0) throw keptError(inUse, says);
  }
  try {
    await tx.delete(table).where(eq(table.id, id));
  } catch (error) {
    const referrer = referringTable(error);
    if (referrer !== undefined) throw inUseError(inUse, referrer);
    throw error;
  }
}

/** What a resource's delete answers to, for the test that holds it against the schema's foreign keys. */
export interface DeleteRule {
  path: string;
  table: string;
  inUse: InUse | undefined;
}

// Keyed by the app's HTTP server, which a Fastify instance shares with every scope it registers.
const rules = new WeakMap<object, DeleteRule[]>();

export function recordDeleteRule(app: { server: object }, rule: DeleteRule): void {
  const list = rules.get(app.server) ?? [];
  list.push(rule);
  rules.set(app.server, list);
}

/** Every admin delete an app serves, with what keeps its records. */
export function deleteRules(app: { server: object }): DeleteRule[] {
  return [...(rules.get(app.server) ?? [])];
}
