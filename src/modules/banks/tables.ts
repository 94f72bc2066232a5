import { boolean, char, pgTable, text } from 'drizzle-orm/pg-core';
import { instant, int8 } from '../../platform/db/columns.ts';
import { users } from '../users/tables.ts';

export const banks = pgTable('banks', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull(),
  code: text('code').notNull().unique('banks_code_unique'),
  // Spelled as the interface spells it.
  currenry: char('currenry', { length: 3 }).notNull(),
  paymentCards: boolean('payment_cards').notNull().default(true),
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

export type Bank = typeof banks.$inferSelect;

export const bankCards = pgTable('bank_cards', {
  id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
  bankId: int8('bank_id')
    .notNull()
    .references(() => banks.id, { onDelete: 'restrict' }),
  userId: int8('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  holderName: text('holder_name').notNull(),
  // Encrypted with the app key; only the last four digits are kept in clear.
  cardNumberEncrypted: text('card_number_encrypted').notNull(),
  cardLast4: char('card_last4', { length: 4 }).notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
  updatedAt: instant('updated_at').notNull().defaultNow(),
});

export type BankCard = typeof bankCards.$inferSelect;
