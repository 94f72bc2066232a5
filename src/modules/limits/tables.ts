import { boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { users } from '../users/tables.ts';

/** The limits a player sets (docs/api.md section 14): money in cents, `session_minutes` in minutes. */
export const LIMIT_FIELDS = [
  'deposit_daily',
  'deposit_weekly',
  'deposit_monthly',
  'loss_daily',
  'loss_weekly',
  'loss_monthly',
  'session_minutes',
] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/** migrations/20261129090000_responsible_gambling.sql: one row per player and limit. */
export const userLimits = pgTable(
  'user_limits',
  {
    userId: int8('user_id')
      .notNull()
      .references(() => users.id),
    field: text('field').$type<LimitField>().notNull(),
    /** In force until `pendingAt` (null: no limit). */
    value: cents('value'),
    /** What applies from `pendingAt` on (null: no limit), when a raise or a removal waits. */
    pendingValue: cents('pending_value'),
    pendingAt: instant('pending_at'),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.field] })],
);

/** One row per self-exclusion request, never changed (kept five years). */
export const selfExclusions = pgTable('self_exclusions', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: int8('user_id')
    .notNull()
    .references(() => users.id),
  until: instant('until'),
  permanent: boolean('permanent').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});

/** The national self-exclusion list as last imported: CPFs, 11 digits. */
export const nationalExclusions = pgTable('national_exclusions', {
  cpf: text('cpf').primaryKey(),
});
