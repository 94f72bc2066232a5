import { integer, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './db/columns.ts';

/** The counters of DbRateLimiter (rate-limit.ts). */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  hits: integer('hits').notNull(),
  resetAt: instant('reset_at').notNull(),
});

export type RateLimit = typeof rateLimits.$inferSelect;
