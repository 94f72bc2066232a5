import { pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { statusCodes } from '../../platform/status.ts';
import { users } from '../users/tables.ts';
import type { PixKeyType } from './pix-key.ts';

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
