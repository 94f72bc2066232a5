import { eq, getTableColumns, sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource, type BodyOf, type Values, type WriteContext } from '../../platform/admin/resource.ts';
import { mustExist } from '../../platform/admin/rules.ts';
import { ValidationError } from '../../platform/errors.ts';
import { equals, IdFilter, type RowOf } from '../../platform/pagination/list.ts';
import { users } from '../users/tables.ts';
import { maskCardNumber, normalizeCardNumber, passesLuhn } from './card-number.ts';
import { bankCards, banks } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

export const BankCardRecord = Type.Object({
  id: Type.Integer(),
  bank_id: Type.Integer(),
  user_id: Type.Integer(),
  holder_name: Type.String(),
  card_number: Type.String({ description: 'Masked: `**** **** **** 1234`.' }),
  ...timestamps,
});

const BankCardBody = Type.Object({
  bank_id: Type.Integer({ minimum: 1 }),
  holder_name: Type.String({ maxLength: 255 }),
  card_number: Type.String({ maxLength: 64, description: '12–19 digits; spaces and hyphens are ignored.' }),
  user_id: Type.Integer({ minimum: 1 }),
});

/** The card's columns, and the number as it may be shown (the clear number never leaves). */
const cardColumns = { ...getTableColumns(bankCards), cardNumber: sql<string>`${bankCards.cardLast4}`.mapWith(maskCardNumber) };

const NOT_DIGITS = 'The card number field must be between 12 and 19 digits.';
const NOT_A_CARD = 'The card number field must be a valid card number.';

/**
 * The card's column values. The Luhn test depends on the bank, so a card moved to a payment-card
 * bank has its stored number checked again.
 */
async function cardValues(
  body: BodyOf<typeof BankCardBody>,
  w: WriteContext<RowOf<typeof cardColumns>>,
): Promise<Values<typeof bankCards>> {
  const { tx, existing } = w;
  if (body.bank_id !== undefined) await mustExist(tx, banks, body.bank_id, 'bank_id');
  if (body.user_id !== undefined) await mustExist(tx, users, body.user_id, 'user_id');
  const values: Values<typeof bankCards> = { bankId: body.bank_id, userId: body.user_id, holderName: body.holder_name };
  let digits: string | undefined;
  if (body.card_number !== undefined) {
    digits = normalizeCardNumber(body.card_number);
    if (digits === undefined) throw ValidationError.field('card_number', NOT_DIGITS);
    values.cardNumberEncrypted = w.ctx.keys.encrypt(digits);
    values.cardLast4 = digits.slice(-4);
  }
  if (digits !== undefined || body.bank_id !== undefined) {
    const bankId = body.bank_id ?? existing!.bankId;
    const [bank] = await tx.select({ paymentCards: banks.paymentCards }).from(banks).where(eq(banks.id, bankId));
    digits ??= w.ctx.keys.decrypt(existing!.cardNumberEncrypted);
    if (bank?.paymentCards === true && !passesLuhn(digits)) throw ValidationError.field('card_number', NOT_A_CARD);
  }
  return values;
}

export const bankCardsResource = defineResource({
  path: '/api/admin/bank-cards',
  param: 'bank_card',
  permission: 'bank-cards',
  tag: 'Admin: bank cards',
  table: bankCards,
  select: cardColumns,
  record: BankCardRecord,
  createBody: BankCardBody,
  filters: { bank_id: equals(bankCards.bankId, IdFilter), user_id: equals(bankCards.userId, IdFilter) },
  search: [bankCards.holderName],
  values: cardValues,
});
