import { bigint, integer, pgTable, smallint, text, timestamp } from 'drizzle-orm/pg-core';

export const paymentMethods = pgTable('payment_methods', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  code: text('code').notNull().unique('payment_methods_code_unique'),
  gateway: text('gateway').notNull(),
  minAmount: bigint('min_amount', { mode: 'bigint' }).notNull(),
  maxAmount: bigint('max_amount', { mode: 'bigint' }).notNull(),
  status: smallint('status').notNull().default(1),
  sort: integer('sort').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type PaymentMethod = typeof paymentMethods.$inferSelect;
