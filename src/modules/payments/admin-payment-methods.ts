import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { FieldCheck, toCents } from '../../platform/money.ts';
import type { PaymentGateways } from './gateways/gateway.ts';
import { PaymentMethodRecord, presentPaymentMethod, type PaymentMethodRow } from './methods.ts';

interface PaymentMethodBody {
  name?: string;
  code?: string;
  gateway?: string;
  min_amount?: unknown;
  max_amount?: unknown;
  status?: number;
  sort?: number;
}

const Money = Type.Union([Type.Number(), Type.String()], { description: 'Currency units, at most 2 decimals, > 0.' });
const SLUG = '^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$';

const PaymentMethodBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  code: Type.String({
    maxLength: 64,
    pattern: SLUG,
    'x-message': 'The :attribute field must be lower-case letters, digits and single hyphens, with at least one letter.',
  }),
  gateway: Type.String({ maxLength: 64, description: 'A gateway adapter code; built in: `sandbox`.' }),
  min_amount: Money,
  max_amount: Money,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled (default), 0 disabled.' })),
  sort: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Ascending; default 0.' })),
});

/** CRUD /api/admin/payment-methods (contract section 8); amounts are validated as money. */
export function paymentMethodsResource(gateways: PaymentGateways) {
  return defineResource<PaymentMethodRow, PaymentMethodBody>({
    path: '/api/admin/payment-methods',
    param: 'payment_method',
    permission: 'payment-methods',
    tag: 'Admin: payment methods',
    table: 'payment_methods',
    record: PaymentMethodRecord,
    createBody: PaymentMethodBody,
    sort: 'sort',
    filters: {
      code: { schema: Type.String({ maxLength: 64 }) },
      gateway: { schema: Type.String({ maxLength: 64 }) },
      status: { schema: Type.Integer({ minimum: 0, maximum: 1 }) },
    },
    search: ['name', 'code'],
    unique: [{ field: 'code', column: 'code', constraint: 'payment_methods_code_unique' }],
    inUse: 'The payment method has top-ups and cannot be deleted; disable it instead.',
    values: async (body, w) => {
      const check = new FieldCheck();
      const values: Record<string, unknown> = {};
      if (body.name !== undefined) values.name = body.name;
      if (body.code !== undefined) values.code = body.code;
      if (body.gateway !== undefined) {
        if (gateways.get(body.gateway) === undefined) check.add('gateway', 'The selected gateway is invalid.');
        values.gateway = body.gateway;
      }
      const min =
        body.min_amount === undefined ? toCents(w.existing?.min_amount ?? 0) : check.money('min_amount', body.min_amount, { min: 1n });
      const max =
        body.max_amount === undefined ? toCents(w.existing?.max_amount ?? 0) : check.money('max_amount', body.max_amount, { min: 1n });
      if (body.min_amount !== undefined) values.min_amount = min;
      if (body.max_amount !== undefined) values.max_amount = max;
      if (check.errors.min_amount === undefined && check.errors.max_amount === undefined && max < min)
        check.add('max_amount', 'The max amount field must be greater than or equal to the min amount.');
      if (body.status !== undefined) values.status = body.status;
      if (body.sort !== undefined) values.sort = body.sort;
      check.throwIfFailed();
      return values;
    },
    present: presentPaymentMethod,
  });
}
