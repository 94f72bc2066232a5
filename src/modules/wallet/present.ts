import { Type } from 'typebox';
import { iso } from '../../platform/admin/rules.ts';
import { toCents, toUnits } from '../../platform/money.ts';
import { LEDGER_TYPES } from './ledger.ts';

export interface BalanceRow {
  id: number | string;
  user_id: number | string;
  currency: string;
  amount: number | string | bigint;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface LedgerRow {
  id: number | string;
  user_id: number | string;
  balance_id: number | string;
  currency: string;
  type: string;
  amount: number | string | bigint;
  balance_after: number | string | bigint;
  reference_type: string | null;
  reference_id: number | string | null;
  description: string | null;
  created_at: Date | string;
}

export const BalanceRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  currency: Type.String(),
  amount: Type.Number(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const TransactionRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  currency: Type.String(),
  type: Type.Union(LEDGER_TYPES.map((type) => Type.Literal(type))),
  amount: Type.Number({ description: 'Signed: credits positive, debits negative.' }),
  balance_after: Type.Number(),
  reference_type: Type.Union([Type.String(), Type.Null()]),
  reference_id: Type.Union([Type.Integer(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time', description: 'Equal to created_at: ledger lines never change.' }),
});

export function presentBalance(row: BalanceRow) {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    currency: row.currency,
    amount: toUnits(toCents(row.amount)),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentTransaction(row: LedgerRow) {
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    currency: row.currency,
    type: row.type as (typeof LEDGER_TYPES)[number],
    amount: toUnits(toCents(row.amount)),
    balance_after: toUnits(toCents(row.balance_after)),
    reference_type: row.reference_type,
    reference_id: row.reference_id === null ? null : Number(row.reference_id),
    description: row.description,
    created_at: iso(row.created_at),
    updated_at: iso(row.created_at),
  };
}

/** Query filter on a ledger line's type. */
export const TypeFilter = Type.Union(
  LEDGER_TYPES.map((type) => Type.Literal(type)),
  { 'x-message': 'The selected :attribute is invalid.' },
);
