import { bigint, foreignKey, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { users } from '../users/tables.ts';
import type { LedgerType } from './ledger.ts';

export const balances = pgTable(
  'balances',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: bigint('user_id', { mode: 'number' })
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull().default(0n),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique('balances_user_currency_unique').on(table.userId, table.currency),
    // The target of the ledger's composite key: a line's user and currency are its balance's.
    unique('balances_id_user_currency_unique').on(table.id, table.userId, table.currency),
  ],
);

export type Balance = typeof balances.$inferSelect;

/** Append-only (a trigger refuses update, delete and truncate): corrections are new rows. */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: bigint('user_id', { mode: 'number' }).notNull(),
    balanceId: bigint('balance_id', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    type: text('type').$type<LedgerType>().notNull(),
    amount: bigint('amount', { mode: 'bigint' }).notNull(),
    balanceAfter: bigint('balance_after', { mode: 'bigint' }).notNull(),
    referenceType: text('reference_type'),
    referenceId: bigint('reference_id', { mode: 'number' }),
    description: text('description'),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique('ledger_entries_idempotency_key_unique').on(table.idempotencyKey),
    foreignKey({
      name: 'ledger_entries_balance_fkey',
      columns: [table.balanceId, table.userId, table.currency],
      foreignColumns: [balances.id, balances.userId, balances.currency],
    })
      .onUpdate('restrict')
      .onDelete('restrict'),
  ],
);

export type LedgerEntry = typeof ledgerEntries.$inferSelect;
