import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { IdFilter } from '../../platform/admin/list.ts';
import { defineResource, type WriteContext } from '../../platform/admin/resource.ts';
import { iso, mustExist } from '../../platform/admin/rules.ts';
import { one } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import { maskCardNumber, normalizeCardNumber, passesLuhn } from './card-number.ts';

interface BankCardRow {
  id: number | string;
  bank_id: number | string;
  user_id: number | string;
  holder_name: string;
  card_number_encrypted: string;
  card_last4: string;
  created_at: Date | string;
  updated_at: Date | string;
}

interface BankCardBody {
  bank_id?: number;
  holder_name?: string;
  card_number?: string;
  user_id?: number;
}

export const BankCardRecord = Type.Object({
  id: Type.Integer(),
  bank_id: Type.Integer(),
  user_id: Type.Integer(),
  holder_name: Type.String(),
  card_number: Type.String({ description: 'Masked: `**** **** **** 1234`.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const BankCardBody = Type.Object({
  bank_id: Type.Integer({ minimum: 1 }),
  holder_name: Type.String({ maxLength: 255 }),
  card_number: Type.String({ maxLength: 64, description: '12–19 digits; spaces and hyphens are ignored.' }),
  user_id: Type.Integer({ minimum: 1 }),
});

const NOT_DIGITS = 'The card number field must be between 12 and 19 digits.';
const NOT_A_CARD = 'The card number field must be a valid card number.';

/**
 * The card's column values. The Luhn test depends on the bank, so a card moved to a payment-card
 * bank has its stored number checked again.
 */
async function cardValues(body: BankCardBody, w: WriteContext<BankCardRow>): Promise<Record<string, unknown>> {
  const { tx, existing } = w;
  const values: Record<string, unknown> = {};
  if (body.bank_id !== undefined) await mustExist(tx, 'banks', body.bank_id, 'bank_id');
  if (body.user_id !== undefined) await mustExist(tx, 'users', body.user_id, 'user_id');
  let digits: string | undefined;
  if (body.card_number !== undefined) {
    digits = normalizeCardNumber(body.card_number);
    if (digits === undefined) throw ValidationError.field('card_number', NOT_DIGITS);
    values.card_number_encrypted = w.ctx.keys.encrypt(digits);
    values.card_last4 = digits.slice(-4);
  }
  if (digits !== undefined || body.bank_id !== undefined) {
    const bankId = body.bank_id ?? Number(existing!.bank_id);
    const bank = await one<{ payment_cards: boolean }>(tx, sql`select payment_cards from banks where id = ${bankId}`);
    digits ??= w.ctx.keys.decrypt(existing!.card_number_encrypted);
    if (bank?.payment_cards === true && !passesLuhn(digits)) throw ValidationError.field('card_number', NOT_A_CARD);
  }
  for (const field of ['bank_id', 'user_id', 'holder_name'] as const) {
    if (body[field] !== undefined) values[field] = body[field];
  }
  return values;
}

export const bankCardsResource = defineResource<BankCardRow, BankCardBody>({
  path: '/api/admin/bank-cards',
  param: 'bank_card',
  permission: 'bank-cards',
  tag: 'Admin: bank cards',
  table: 'bank_cards',
  record: BankCardRecord,
  createBody: BankCardBody,
  filters: { bank_id: { schema: IdFilter }, user_id: { schema: IdFilter } },
  search: ['holder_name'],
  values: cardValues,
  present: (row) => ({
    id: Number(row.id),
    bank_id: Number(row.bank_id),
    user_id: Number(row.user_id),
    holder_name: row.holder_name,
    card_number: maskCardNumber(row.card_last4),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }),
});
