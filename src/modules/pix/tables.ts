import { sql } from 'drizzle-orm';
import { foreignKey, pgTable, text, unique, uniqueIndex } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { paymentMethods } from '../payments/tables.ts';
import { topups } from '../topups/tables.ts';

/** What a received payment did: paid its top-up, or went back to its payer. */
export const PIX_OUTCOMES = ['credited', 'returned'] as const;
export type PixOutcome = (typeof PIX_OUTCOMES)[number];

/**
 * Where a return stands: pending (not asked yet), unknown (asked, no answer known), requested
 * (the PSP took it), returned, failed (the PSP could not make it), refused (the PSP would not try).
 */
export const RETURN_STATES = ['pending', 'unknown', 'requested', 'returned', 'failed', 'refused'] as const;
export type ReturnState = (typeof RETURN_STATES)[number];

/** One row per payment the PSP confirmed for one of our charges (migration 20261128110000). */
export const pixPayments = pgTable(
  'pix_payments',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    endToEndId: text('end_to_end_id').notNull(),
    // The top-up's method: the composite key below holds both (migration 20261201090000).
    paymentMethodId: int8('payment_method_id').notNull(),
    txid: text('txid').notNull(),
    topupId: int8('topup_id').notNull(),
    amount: cents('amount').notNull(),
    paidAt: instant('paid_at').notNull(),
    payerCpf: text('payer_cpf'),
    payerCnpj: text('payer_cnpj'),
    payerName: text('payer_name'),
    outcome: text('outcome', { enum: PIX_OUTCOMES }).notNull(),
    reason: text('reason'),
    returnId: text('return_id'),
    returnStatus: text('return_status', { enum: RETURN_STATES }),
    returnDetail: text('return_detail'),
    returnRtrId: text('return_rtr_id'),
    returnedAt: instant('returned_at'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('pix_payments_end_to_end_unique').on(table.endToEndId),
    uniqueIndex('pix_payments_return_id_unique')
      .on(table.returnId)
      .where(sql`return_id is not null`),
    foreignKey({
      name: 'pix_payments_topup_method_fkey',
      columns: [table.topupId, table.paymentMethodId],
      foreignColumns: [topups.id, topups.paymentMethodId],
    }).onDelete('restrict'),
  ],
);

export type PixPaymentRow = typeof pixPayments.$inferSelect;

/** Reconciliation's checkpoint per method. */
export const pixCheckpoints = pgTable('pix_checkpoints', {
  paymentMethodId: int8('payment_method_id')
    .primaryKey()
    .references(() => paymentMethods.id, { onDelete: 'cascade' }),
  reconciledUntil: instant('reconciled_until').notNull(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});
