import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { columnPresenter, timestamps } from '../../platform/http/record.ts';
import { LEDGER_TYPES } from './ledger.ts';
import { balances, ledgerEntries } from './tables.ts';

export const BalanceRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  currency: Type.String(),
  amount: Type.Number(),
  ...timestamps,
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

/** A ledger line as a statement shows it; it never changes, so its updated_at is its created_at. */
export const transactionFields = { ...getTableColumns(ledgerEntries), updatedAt: ledgerEntries.createdAt };

export const presentBalance = columnPresenter(BalanceRecord, getTableColumns(balances));

/** Query filter on a ledger line's type. */
export const TypeFilter = Type.Union(
  LEDGER_TYPES.map((type) => Type.Literal(type)),
  { 'x-message': 'The selected :attribute is invalid.' },
);

/** Query filter on a currency code, as stored (upper case). */
export const CurrencyFilter = Type.String({ pattern: '^[A-Z]{3}$' });
