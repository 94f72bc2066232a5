import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { equals } from '../../platform/pagination/list.ts';
import { banks } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

export const BankRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  currenry: Type.String({ description: 'Currency code (ISO 4217); the field name is spelled so by the interface.' }),
  payment_cards: Type.Boolean({ description: 'Card numbers of this bank must pass the Luhn check.' }),
  ...timestamps,
});

const BankBody = Type.Object({
  name: Type.String({ maxLength: 255 }),
  code: Type.String({ maxLength: 32 }),
  currenry: Type.String({ pattern: '^[A-Za-z]{3}$', 'x-message': 'The :attribute field must be a 3-letter currency code.' }),
  payment_cards: Type.Optional(Type.Boolean({ description: 'Default true.' })),
});

export const banksResource = defineResource({
  path: '/api/admin/banks',
  param: 'bank',
  permission: 'banks',
  tag: 'Admin: banks',
  table: banks,
  record: BankRecord,
  createBody: BankBody,
  filters: { code: equals(banks.code, Type.String()), currenry: equals(banks.currenry, Type.String({ pattern: '^[A-Z]{3}$' })) },
  search: [banks.name, banks.code],
  unique: [{ field: 'code', column: banks.code }],
  // Cards are users' records: deleting them is the operator's choice (a user's go with the user).
  inUse: { record: 'bank', keptBy: { bank_cards: 'has bank cards' } },
  values: async (body) => ({
    name: body.name,
    code: body.code,
    currenry: body.currenry?.toUpperCase(),
    paymentCards: body.payment_cards,
  }),
});
