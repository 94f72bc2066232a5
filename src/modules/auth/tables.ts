import { pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from '../../platform/db/columns.ts';

/** One live reset token per email; only its SHA-256 is stored. */
export const passwordResetTokens = pgTable('password_reset_tokens', {
  email: text('email').primaryKey(),
  tokenHash: text('token_hash').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});

export type PasswordResetToken = typeof passwordResetTokens.$inferSelect;
