import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** The counters of DbRateLimiter (rate-limit.ts). */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  hits: integer('hits').notNull(),
  resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
});

export type RateLimit = typeof rateLimits.$inferSelect;
