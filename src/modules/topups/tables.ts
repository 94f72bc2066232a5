import { pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { paymentMethods } from '../payments/tables.ts';
import { users } from '../users/tables.ts';

export const topups = pgTable(
  'topups',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    publicId: text('public_id').notNull(),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    paymentMethodId: int8('payment_method_id')
      .notNull()
      .references(() => paymentMethods.id, { onDelete: 'restrict' }),
    amount: cents('amount').notNull(),
    currency: text('currency').notNull(),
    // Stored 0 pending, 1 paid, 2 cancelled, 3 expired (a charge the PSP reported unpaid past its
    // expiry), 4 returned; expiry by age is derived (repository.ts).
    status: smallint('status').notNull().default(0),
    gateway: text('gateway').notNull(),
    gatewayPaymentId: text('gateway_payment_id'),
    qrCode: text('qr_code'),
    // When the gateway's charge stops being payable (API Pix methods), and why a returned top-up was returned.
    expiresAt: instant('expires_at'),
    reason: text('reason'),
    paidAt: instant('paid_at'),
    paidVia: text('paid_via', { enum: ['webhook', 'admin'] }),
    paidBy: int8('paid_by').references(() => users.id, { onDelete: 'set null' }),
    // No foreign keys: settings versions are append-only, so the ids stay meaningful anyway.
    topupSettingsId: int8('topup_settings_id'),
    referralSettingsId: int8('referral_settings_id'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('topups_public_id_unique').on(table.publicId),
    unique('topups_gateway_payment_unique').on(table.gateway, table.gatewayPaymentId),
    // What a received PIX payment's key names (pix_payments_topup_method_fkey).
    unique('topups_id_method_unique').on(table.id, table.paymentMethodId),
  ],
);

export type Topup = typeof topups.$inferSelect;

/** Paid top-ups per user; the upsert on its row serialises one user's concurrent payments. */
export const topupCounters = pgTable('topup_counters', {
  userId: int8('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'restrict' }),
  paidCount: int8('paid_count').notNull(),
  paidTotal: cents('paid_total').notNull(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

export type TopupCounter = typeof topupCounters.$inferSelect;
