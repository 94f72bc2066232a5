import { bigint, pgTable, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { paymentMethods } from '../payments/tables.ts';
import { users } from '../users/tables.ts';

export const topups = pgTable(
  'topups',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    publicId: text('public_id').notNull(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    paymentMethodId: bigint('payment_method_id', { mode: 'number' })
      .notNull()
      .references(() => paymentMethods.id, { onDelete: 'restrict' }),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    // Stored 0 pending, 1 paid, 2 cancelled; expiry is derived from age (repository.ts).
    status: smallint('status').notNull().default(0),
    gateway: text('gateway').notNull(),
    gatewayPaymentId: text('gateway_payment_id'),
    qrCode: text('qr_code'),
    paidAt: timestamp('paid_at', { withTimezone: true }),
    paidVia: text('paid_via', { enum: ['webhook', 'admin'] }),
    paidBy: bigint('paid_by', { mode: 'number' }).references(() => users.id, { onDelete: 'set null' }),
    // No foreign keys: settings versions are append-only, so the ids stay meaningful anyway.
    topupSettingsId: bigint('topup_settings_id', { mode: 'number' }),
    referralSettingsId: bigint('referral_settings_id', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique('topups_public_id_unique').on(table.publicId),
    unique('topups_gateway_payment_unique').on(table.gateway, table.gatewayPaymentId),
  ],
);

export type Topup = typeof topups.$inferSelect;

/** Paid top-ups per user; the upsert on its row serialises one user's concurrent payments. */
export const topupCounters = pgTable('topup_counters', {
  userId: bigint('user_id', { mode: 'number' })
    .primaryKey()
    .references(() => users.id, { onDelete: 'restrict' }),
  paidCount: bigint('paid_count', { mode: 'number' }).notNull(),
  paidTotal: bigint('paid_total', { mode: 'bigint' }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type TopupCounter = typeof topupCounters.$inferSelect;
