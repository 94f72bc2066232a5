import { date, foreignKey, pgTable, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { users } from '../users/tables.ts';
import type { LedgerType } from './ledger.ts';

export const balances = pgTable(
  'balances',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    currency: text('currency').notNull(),
    amount: cents('amount').notNull().default(0n),
    /** The sum of the balance's `bet` lines, kept by ledger_apply: the withdrawal `total_bet` limit reads it. */
    betTurnover: cents('bet_turnover').notNull().default(0n),
    /**
     * The net loss (stakes − wins − refunds) of the São Paulo day, week and month each date names,
     * kept by ledger_apply: the loss limits of REGULATION=br read it with this row locked
     * (migrations/20261129090000_responsible_gambling.sql).
     */
    lossDay: date('loss_day', { mode: 'string' }),
    lossDayNet: cents('loss_day_net').notNull().default(0n),
    lossWeek: date('loss_week', { mode: 'string' }),
    lossWeekNet: cents('loss_week_net').notNull().default(0n),
    lossMonth: date('loss_month', { mode: 'string' }),
    lossMonthNet: cents('loss_month_net').notNull().default(0n),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
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
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: int8('user_id').notNull(),
    balanceId: int8('balance_id').notNull(),
    currency: text('currency').notNull(),
    type: text('type').$type<LedgerType>().notNull(),
    amount: cents('amount').notNull(),
    balanceAfter: cents('balance_after').notNull(),
    referenceType: text('reference_type'),
    referenceId: int8('reference_id'),
    description: text('description'),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
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
