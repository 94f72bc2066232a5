import { date, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The totals of closed São Paulo days, kept once (migration 20261208090000, docs/decisions/0008):
 * what db/functions/report_day_totals.sql answered, under the hash its file had then. Written and
 * read by day-totals.ts in SQL; declared here so the schema has its description.
 */
export const reportDays = pgTable(
  'report_days',
  {
    day: date('day', { mode: 'string' }).notNull(),
    currency: text('currency').notNull(),
    ruleHash: text('rule_hash').notNull(),
    totals: jsonb('totals').notNull(),
    computedAt: timestamp('computed_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.day, table.currency] })],
);
