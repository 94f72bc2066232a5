import { eq } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client.ts';

/** Whether `table` has a row with this id: the lookup of a route's `pathRecord` (http/guard.ts). */
export function idExists(table: PgTable & { id: AnyPgColumn }): (db: Db, id: number) => Promise<boolean> {
  return async (db, id) => (await db.select({ id: table.id }).from(table).where(eq(table.id, id)).limit(1)).length > 0;
}
