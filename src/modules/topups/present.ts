import { eq, sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { iso, isoOrNull } from '../../platform/admin/rules.ts';
import { correlated } from '../../platform/db/columns.ts';
import { toCents, toUnits } from '../../platform/money.ts';
import { filter } from '../../platform/pagination/list.ts';
import { ledgerEntries } from '../wallet/tables.ts';
import type { TopupRow } from './repository.ts';
import { topups } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

export const TopupRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  payment_method_id: Type.Integer(),
  amount: Type.Number(),
  gift_amount: Type.Number({ description: 'Computed when paid; 0 before.' }),
  currency: Type.String(),
  status: Type.Integer({ description: '0 pending, 1 paid, 2 cancelled, 3 expired (pending for more than 24 hours).' }),
  payment_url: Type.Union([Type.String(), Type.Null()], { description: '`{APP_URL}/pay/{public id}`: the payment page.' }),
  qr_code: Type.Union([Type.String(), Type.Null()], { description: 'PIX copy-and-paste text (BR Code).' }),
  gateway: Type.String(),
  gateway_payment_id: Type.Union([Type.String(), Type.Null()]),
  paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ...timestamps,
});

/** The status every reader sees: expiry is derived by the database function the paid path uses too. */
const status = sql<number>`topup_status(${topups.status}, ${topups.createdAt})`.mapWith(Number);

/**
 * A top-up as lists read it, typed: the fields of the repository's TOPUP_COLUMNS under the same
 * names, so presentTopup serves rows from either. The gift is its ledger line, under the key
 * pay_topup writes.
 */
export const topupFields = {
  id: topups.id,
  public_id: topups.publicId,
  user_id: topups.userId,
  payment_method_id: topups.paymentMethodId,
  amount: topups.amount,
  gift_amount: correlated<bigint>(sql`coalesce((select ${ledgerEntries.amount} from ${ledgerEntries}
    where ${ledgerEntries.idempotencyKey} = topup_gift_key(${topups.id})), 0)`).mapWith(ledgerEntries.amount),
  currency: topups.currency,
  status,
  gateway: topups.gateway,
  gateway_payment_id: topups.gatewayPaymentId,
  qr_code: topups.qrCode,
  paid_at: topups.paidAt,
  created_at: topups.createdAt,
  updated_at: topups.updatedAt,
};

/** The `status` query filter, on the status as readers see it (an old pending top-up is 3). */
export const statusFilter = filter(Type.Integer({ minimum: 0, maximum: 3, 'x-message': 'The selected :attribute is invalid.' }), (value) =>
  eq(status, value),
);

export function presentTopup(row: TopupRow, appUrl: string) {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    payment_method_id: Number(row.payment_method_id),
    amount: toUnits(toCents(row.amount)),
    gift_amount: toUnits(toCents(row.gift_amount)),
    currency: row.currency,
    status: Number(row.status),
    payment_url: row.qr_code === null ? null : `${appUrl}/pay/${row.public_id}`,
    qr_code: row.qr_code,
    gateway: row.gateway,
    gateway_payment_id: row.gateway_payment_id,
    paid_at: isoOrNull(row.paid_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
