import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { iso } from '../../platform/admin/rules.ts';
import { one, type Db } from '../../platform/db/client.ts';
import { toCents, toUnits } from '../../platform/money.ts';

export interface PaymentMethodRow {
  id: number | string;
  name: string;
  code: string;
  gateway: string;
  min_amount: number | string | bigint;
  max_amount: number | string | bigint;
  status: number;
  sort: number;
  created_at: Date | string;
  updated_at: Date | string;
}

export const PaymentMethodRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  gateway: Type.String({ description: 'Gateway adapter code, e.g. `sandbox`.' }),
  min_amount: Type.Number(),
  max_amount: Type.Number(),
  status: Type.Integer({ description: '1 enabled, 0 disabled.' }),
  sort: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export function presentPaymentMethod(row: PaymentMethodRow) {
  return {
    id: Number(row.id),
    name: row.name,
    code: row.code,
    gateway: row.gateway,
    min_amount: toUnits(toCents(row.min_amount)),
    max_amount: toUnits(toCents(row.max_amount)),
    status: Number(row.status),
    sort: Number(row.sort),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export async function findPaymentMethod(db: Db, id: number): Promise<PaymentMethodRow | undefined> {
  return one<PaymentMethodRow>(db, sql`select * from payment_methods where id = ${id}`);
}
