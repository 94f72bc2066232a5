import { integer, jsonb, pgTable, smallint, text } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';

export const paymentMethods = pgTable('payment_methods', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  code: text('code').notNull().unique('payment_methods_code_unique'),
  gateway: text('gateway').notNull(),
  minAmount: cents('min_amount').notNull(),
  maxAmount: cents('max_amount').notNull(),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  // The gateway's configuration (pix-api/config.ts): the readable fields, and the write-only ones
  // each sealed with the app key, by name.
  config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
  configSecrets: jsonb('config_secrets').$type<Record<string, string>>().notNull().default({}),
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

export type PaymentMethod = typeof paymentMethods.$inferSelect;
