import { bigint, boolean, char, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../users/tables.ts';

export const banks = pgTable('banks', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  code: text('code').notNull().unique('banks_code_unique'),
  // Spelled as the interface spells it.
  currenry: char('currenry', { length: 3 }).notNull(),
  paymentCards: boolean('payment_cards').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type Bank = typeof banks.$inferSelect;

export const bankCards = pgTable('bank_cards', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  bankId: bigint('bank_id', { mode: 'number' })
    .notNull()
    .references(() => banks.id, { onDelete: 'restrict' }),
  userId: bigint('user_id', { mode: 'number' })
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  holderName: text('holder_name').notNull(),
  // Encrypted with the app key; only the last four digits are kept in clear.
  cardNumberEncrypted: text('card_number_encrypted').notNull(),
  cardLast4: char('card_last4', { length: 4 }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export type BankCard = typeof bankCards.$inferSelect;
