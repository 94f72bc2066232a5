import { bigint, boolean, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const sessions = pgTable('sessions', {
  idHash: text('id_hash').primaryKey(),
  userId: bigint('user_id', { mode: 'number' }),
  csrfToken: text('csrf_token').notNull(),
  pendingUserId: bigint('pending_user_id', { mode: 'number' }),
  pendingRemember: boolean('pending_remember').notNull().default(false),
  pendingAt: timestamp('pending_at', { withTimezone: true }),
  passwordConfirmedAt: timestamp('password_confirmed_at', { withTimezone: true }),
  persistent: boolean('persistent').notNull().default(false),
  ip: text('ip'),
  userAgent: text('user_agent'),
  /** When the session ends whatever its activity (REGULATION=br's session time); null: idle lifetime only. */
  endsAt: timestamp('ends_at', { withTimezone: true }),
  /** When the user signed in on this session (the app's clock); null for a guest's. A later time limit counts from it. */
  signedInAt: timestamp('signed_in_at', { withTimezone: true }),
  lastActivity: timestamp('last_activity', { withTimezone: true }).notNull().defaultNow(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
