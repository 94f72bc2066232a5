import { eq } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { Db } from '../../platform/db/client.ts';
import { timestamps } from '../../platform/http/record.ts';
import { toUnits } from '../../platform/money.ts';
import type { RowOf } from '../../platform/pagination/list.ts';
import { GatewayConfigRecord, SECRET_FIELDS } from './pix-api/config.ts';
import { paymentMethods } from './tables.ts';

const methodFields = {
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  gateway: Type.String({ description: 'Gateway adapter code: `sandbox`, `pix-api` or `efi`.' }),
  min_amount: Type.Number(),
  max_amount: Type.Number(),
  status: Type.Integer({ description: '1 enabled, 0 disabled.' }),
  sort: Type.Integer(),
  ...timestamps,
};

/** A payment method as customers see it: no gateway configuration. */
export const PaymentMethodRecord = Type.Object(methodFields);

/** The columns customers' lists read: never the configuration. */
export const customerPaymentMethodFields = {
  id: paymentMethods.id,
  name: paymentMethods.name,
  code: paymentMethods.code,
  gateway: paymentMethods.gateway,
  minAmount: paymentMethods.minAmount,
  maxAmount: paymentMethods.maxAmount,
  status: paymentMethods.status,
  sort: paymentMethods.sort,
  createdAt: paymentMethods.createdAt,
  updatedAt: paymentMethods.updatedAt,
};

/** A payment method as operators see it: its configuration's readable fields, and which secrets are set. */
export const AdminPaymentMethodRecord = Type.Object({
  ...methodFields,
  config: GatewayConfigRecord,
  secrets_set: Type.Array(Type.String({ enum: [...SECRET_FIELDS] }), {
    description: 'The write-only configuration fields that hold a value (the values are never answered).',
  }),
});

/** What the admin resource reads; the sealed secrets are read for an update's merge and never presented. */
export const adminPaymentMethodFields = {
  ...customerPaymentMethodFields,
  config: paymentMethods.config,
  configSecrets: paymentMethods.configSecrets,
};

export function presentAdminPaymentMethod(row: RowOf<typeof adminPaymentMethodFields>): Static<typeof AdminPaymentMethodRecord> {
  const config: Record<string, unknown> = {};
  for (const field of Object.keys(GatewayConfigRecord.properties)) if (row.config[field] !== undefined) config[field] = row.config[field];
  return {
    id: row.id,
    name: row.name,
    code: row.code,
    gateway: row.gateway,
    min_amount: toUnits(row.minAmount),
    max_amount: toUnits(row.maxAmount),
    status: row.status,
    sort: row.sort,
    config,
    secrets_set: SECRET_FIELDS.filter((field) => row.configSecrets[field] !== undefined),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

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
