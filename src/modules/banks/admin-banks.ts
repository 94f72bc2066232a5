import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { iso } from '../../platform/admin/rules.ts';

interface BankRow {
  id: number | string;
  name: string;
  code: string;
  currenry: string;
  payment_cards: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

interface BankBody {
  name?: string;
  code?: string;
  currenry?: string;
  payment_cards?: boolean;
}

export const BankRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  currenry: Type.String({ description: 'Currency code (ISO 4217); the field name is spelled so by the interface.' }),
  payment_cards: Type.Boolean({ description: 'Card numbers of this bank must pass the Luhn check.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const BankBody = Type.Object({
  name: Type.String({ maxLength: 255 }),
  code: Type.String({ maxLength: 32 }),
  currenry: Type.String({ pattern: '^[A-Za-z]{3}$', 'x-message': 'The :attribute field must be a 3-letter currency code.' }),
  payment_cards: Type.Optional(Type.Boolean({ description: 'Default true.' })),
});

export const banksResource = defineResource<BankRow, BankBody>({
  path: '/api/admin/banks',
  param: 'bank',
  permission: 'banks',
  tag: 'Admin: banks',
  table: 'banks',
  record: BankRecord,
  createBody: BankBody,
  filters: { code: { schema: Type.String() }, currenry: { schema: Type.String({ pattern: '^[A-Z]{3}$' }) } },
  search: ['name', 'code'],
  unique: [{ field: 'code', column: 'code', constraint: 'banks_code_unique' }],
  inUse: 'The bank still has bank cards.',
  values: async (body) => ({
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.code === undefined ? {} : { code: body.code }),
    ...(body.currenry === undefined ? {} : { currenry: body.currenry.toUpperCase() }),
    ...(body.payment_cards === undefined ? {} : { payment_cards: body.payment_cards }),
  }),
  present: (row) => ({
    id: Number(row.id),
    name: row.name,
    code: row.code,
    currenry: row.currenry,
    payment_cards: row.payment_cards,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }),
});
