import { pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { statusCodes } from '../../platform/status.ts';
import { paymentMethods } from '../payments/tables.ts';
import { users } from '../users/tables.ts';
import type { PixKeyType } from './pix-key.ts';

/**
 * What a payout came to, agreeing with the withdrawal's status: while approved, `sent` (the
 * gateway took it) or `unknown` (no answer known: the money stays held until an answer comes);
 * then `paid` (completed), `refused` (the PSP refused it and holds no such payout: the
 * withdrawal failed with its refund) or `failed` (not made: failed, or rejected after its
 * approval, with the refund). Null: not asked (pending, rejected while pending). The ends are
 * written by withdrawal_transition with the status (migrations/20261203120000_payout_state_outcome.sql).
 */
export const PAYOUT_STATES = ['sent', 'unknown', 'refused', 'paid', 'failed'] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

/** migrations/20261124110000_withdrawals.sql; rows change only through request_withdrawal and withdrawal_transition (db/functions/). */
export const withdrawals = pgTable(
  'withdrawals',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    publicId: text('public_id').notNull(),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    payeeName: text('payee_name').notNull(),
    accountType: text('account_type').$type<PixKeyType>().notNull(),
    payeeAccount: text('payee_account').notNull(),
    amount: cents('amount').notNull(),
    fee: cents('fee').notNull(),
    currency: text('currency').notNull(),
    // WITHDRAWAL_STATUSES below.
    status: smallint('status').notNull().default(0),
    reason: text('reason'),
    reviewedBy: int8('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: instant('reviewed_at'),
    paidAt: instant('paid_at'),
    withdrawSettingsId: int8('withdraw_settings_id').notNull(),
    requestKey: text('request_key'),
    requestDigest: text('request_digest'),
    payoutGateway: text('payout_gateway'),
    payoutId: text('payout_id'),
    // migrations/20261128150000_efi_payouts.sql: the method whose PSP pays it, what the payout
    // request came to (PAYOUT_STATES), the gateway's words, and reconciliation's last look.
    payoutMethodId: int8('payout_method_id').references(() => paymentMethods.id, { onDelete: 'restrict' }),
    payoutState: text('payout_state', { enum: PAYOUT_STATES }),
    payoutDetail: text('payout_detail'),
    payoutCheckedAt: instant('payout_checked_at'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  // Also unique: (user_id, request_key) where a key was sent (a partial index, see the migration).
  (table) => [unique('withdrawals_public_id_unique').on(table.publicId)],
);

export type Withdrawal = typeof withdrawals.$inferSelect;

/** A withdrawal's statuses, declared once; the transitions between them are WITHDRAWAL_TRANSITIONS (repository.ts). */
export const WITHDRAWAL_STATUSES = statusCodes({
  pending: 'pending review (funds held)',
  approved: 'approved (being paid)',
  paid: 'paid',
  rejected: 'rejected (funds returned)',
  failed: 'failed (funds returned)',
});
export const WITHDRAWAL_STATUS = WITHDRAWAL_STATUSES.code;

/**
 * The payment method that pays approved withdrawals out (docs/api.md section 13b): one row (id 1);
 * a null method is the built-in sandbox. migrations/20261128150000_efi_payouts.sql.
 */
export const payoutSettings = pgTable('payout_settings', {
  id: smallint('id').primaryKey().default(1),
  paymentMethodId: int8('payment_method_id').references(() => paymentMethods.id, { onDelete: 'restrict' }),
  updatedBy: int8('updated_by'),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});
