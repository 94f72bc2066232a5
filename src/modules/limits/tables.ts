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

/**
 * migrations/20261130090000_player_standing.sql: what the check of a stake reads, one row per
 * player, derived in SQL from the limit rows, the self-exclusions and the identity whenever they
 * change (db/functions/player_standing_refresh.sql). Never written by the application.
 */
export const playerStanding = pgTable('player_standing', {
  // Derived, not a record: it goes with its user (whose limits, exclusions and identity keep them).
  userId: int8('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  cpf: text('cpf'),
  /** Whether the national list holds `cpf`. */
  listed: boolean('listed').notNull().default(false),
  /** The latest self-exclusion's end; infinity when permanent. */
  excludedUntil: instant('excluded_until'),
  lossDaily: cents('loss_daily'),
  lossDailyPending: cents('loss_daily_pending'),
  lossDailyPendingAt: instant('loss_daily_pending_at'),
  lossWeekly: cents('loss_weekly'),
  lossWeeklyPending: cents('loss_weekly_pending'),
  lossWeeklyPendingAt: instant('loss_weekly_pending_at'),
  lossMonthly: cents('loss_monthly'),
  lossMonthlyPending: cents('loss_monthly_pending'),
  lossMonthlyPendingAt: instant('loss_monthly_pending_at'),
  sessionMinutes: int8('session_minutes'),
  sessionMinutesPending: int8('session_minutes_pending'),
  sessionMinutesPendingAt: instant('session_minutes_pending_at'),
});
