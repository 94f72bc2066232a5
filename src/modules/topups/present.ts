import { Type } from 'typebox';
import { iso, isoOrNull } from '../../platform/admin/rules.ts';
import { toCents, toUnits } from '../../platform/money.ts';
import type { TopupRow } from './repository.ts';

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
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

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
