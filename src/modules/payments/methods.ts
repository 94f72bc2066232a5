import { eq } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Db } from '../../platform/db/client.ts';
import { paymentMethods } from './tables.ts';
import { timestamps } from '../../platform/http/record.ts';

/** A payment method as customers and operators see it: its columns, amounts in currency units. */
export const PaymentMethodRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  gateway: Type.String({ description: 'Gateway adapter code, e.g. `sandbox`.' }),
  min_amount: Type.Number(),
  max_amount: Type.Number(),
  status: Type.Integer({ description: '1 enabled, 0 disabled.' }),
  sort: Type.Integer(),
  ...timestamps,
});

/** What starting a top-up needs of a method, under the names topups/service.ts reads. */
export async function findPaymentMethod(db: Db, id: number) {
  const [row] = await db
    .select({
      id: paymentMethods.id,
      gateway: paymentMethods.gateway,
      status: paymentMethods.status,
      min_amount: paymentMethods.minAmount,
      max_amount: paymentMethods.maxAmount,
    })
    .from(paymentMethods)
    .where(eq(paymentMethods.id, id));
  return row;
}
