import { sql, type SQL } from 'drizzle-orm';
import { bigint, timestamp } from 'drizzle-orm/pg-core';

// BIGINT comes back from the drivers as a string, a number or a bigint; a fixed mode gives a
// column one type on both. Ids and counts stay far below 2^53, so they read as numbers; money
// reads as bigint, so cents never pass through a float.

/** An id, a foreign id or a count in a BIGINT column. */
export function int8<TName extends string>(name: TName) {
  return bigint(name, { mode: 'number' });
}

/** Money in BIGINT cents. */
export function cents<TName extends string>(name: TName) {
  return bigint(name, { mode: 'bigint' });
}

/** A timestamptz column, read as a Date. */
export function instant<TName extends string>(name: TName) {
  return timestamp(name, { withTimezone: true });
}

/**
 * A computed field that reads other tables (a correlated subquery), typed `T`. In a single-table
 * select Drizzle writes the selection's top-level columns without their table, which would turn
 * `role_user.user_id = users.id` into `role_user.user_id = id` (the inner table's id); nested one
 * level, every column keeps its table.
 */
export function correlated<T>(expression: SQL): SQL<T> {
  return sql<T>`${expression}`;
}
