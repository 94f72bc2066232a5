import { bigint, boolean, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export const users = pgTable('users', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  password: text('password').notNull(),
  ref: bigint('ref', { mode: 'number' }),
  status: smallint('status').notNull().default(1),
  isPartner: boolean('is_partner').notNull().default(false),
  twoFactorSecret: text('two_factor_secret'),
  twoFactorRecoveryCodes: text('two_factor_recovery_codes'),
  twoFactorConfirmedAt: timestamp('two_factor_confirmed_at', { withTimezone: true }),
  twoFactorLastStep: bigint('two_factor_last_step', { mode: 'number' }),
  rememberNonce: text('remember_nonce').notNull(),
  emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type UserRow = typeof users.$inferSelect;
