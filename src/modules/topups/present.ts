import { eq } from 'drizzle-orm';
import { Type } from 'typebox';
import { toUnits } from '../../platform/money.ts';
import { filter } from '../../platform/pagination/list.ts';
import { TOPUP_STATUSES, topupStatus, type TopupRow } from './repository.ts';
import { timestamps } from '../../platform/http/record.ts';

export const TopupRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  payment_method_id: Type.Integer(),
  amount: Type.Number(),
  gift_amount: Type.Number({ description: 'Computed when paid; 0 before.' }),
  currency: Type.String(),
  status: Type.Integer({ description: TOPUP_STATUSES.description }),
  payment_url: Type.Union([Type.String(), Type.Null()], { description: '`{APP_URL}/pay/{public id}`: the payment page.' }),
  qr_code: Type.Union([Type.String(), Type.Null()], { description: 'PIX copy-and-paste text (BR Code).' }),
  gateway: Type.String(),
  gateway_payment_id: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why a returned (4) top-up was returned; null otherwise.' }),
  paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ...timestamps,
});

/** The `status` query filter, on the status as readers see it (an old pending top-up is 3). */
export const statusFilter = filter(TOPUP_STATUSES.filter, (param) => eq(topupStatus, param));

export function presentTopup(row: TopupRow, appUrl: string) {
  return {
    id: row.id,
    user_id: row.user_id,
    payment_method_id: row.payment_method_id,
    amount: toUnits(row.amount),
    gift_amount: toUnits(row.gift_amount),
    currency: row.currency,
    status: row.status,
    payment_url: row.qr_code === null ? null : `${appUrl}/pay/${row.public_id}`,
    qr_code: row.qr_code,
    gateway: row.gateway,
    gateway_payment_id: row.gateway_payment_id,
    reason: row.reason,
    paid_at: row.paid_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
