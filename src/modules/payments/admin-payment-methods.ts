import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { FieldCheck } from '../../platform/money.ts';
import { equals } from '../../platform/pagination/list.ts';
import type { PaymentGateways } from './gateways/gateway.ts';
import { configValues } from './method-config.ts';
import { AdminPaymentMethodRecord, adminPaymentMethodFields, presentAdminPaymentMethod } from './methods.ts';
import { GatewayConfigBody } from './pix-api/config.ts';
import { PAYMENT_METHODS_TOPIC } from './pix-api/methods.ts';
import { paymentMethods } from './tables.ts';

const Money = Type.Union([Type.Number(), Type.String()], { description: 'Currency units, at most 2 decimals, > 0.' });
const SLUG = '^(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*$';

const PaymentMethodBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  code: Type.String({
    maxLength: 64,
    pattern: SLUG,
    'x-message': 'The :attribute field must be lower-case letters, digits and single hyphens, with at least one letter.',
  }),
  gateway: Type.String({
    maxLength: 64,
    description: 'A gateway adapter code: `sandbox` (built in), `pix-api` (any PSP speaking API Pix) or `efi`.',
  }),
  min_amount: Money,
  max_amount: Money,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: '1 enabled (default), 0 disabled.' })),
  sort: Type.Optional(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000, description: 'Ascending; default 0.' })),
  config: Type.Optional({
    ...GatewayConfigBody,
    description:
      'The gateway’s configuration (docs/api.md section 13); none for the sandbox. Sent, its readable fields replace the stored ones; a write-only secret not sent keeps its value.',
  }),
});

/** CRUD /api/admin/payment-methods (docs/api.md sections 8 and 13); amounts are validated as money, configurations as a whole. */
export function paymentMethodsResource(ctx: AppContext, gateways: PaymentGateways) {
  return defineResource({
    path: '/api/admin/payment-methods',
    param: 'payment_method',
    permission: 'payment-methods',
    tag: 'Admin: payment methods',
    table: paymentMethods,
    select: adminPaymentMethodFields,
    record: AdminPaymentMethodRecord,
    present: presentAdminPaymentMethod,
    createBody: PaymentMethodBody,
    sort: paymentMethods.sort,
    filters: {
      code: equals(paymentMethods.code, Type.String({ maxLength: 64 })),
      gateway: equals(paymentMethods.gateway, Type.String({ maxLength: 64 })),
      status: equals(paymentMethods.status, Type.Integer({ minimum: 0, maximum: 1 })),
    },
    search: [paymentMethods.name, paymentMethods.code],
    unique: [{ field: 'code', column: paymentMethods.code }],
    inUse: {
      record: 'payment method',
      keptBy: {
        // A received PIX payment keeps its top-up, which keeps the method (migration 20261201090000).
        topups: 'has top-ups',
        withdrawals: 'paid out withdrawals',
        payout_settings: 'pays withdrawals out',
      },
      disable: true,
    },
    values: async (body, w) => {
      const check = new FieldCheck();
      if (body.gateway !== undefined && gateways.get(body.gateway) === undefined) check.add('gateway', 'The selected gateway is invalid.');
      const sentMin = body.min_amount === undefined ? undefined : check.money('min_amount', body.min_amount, { min: 1n });
      const sentMax = body.max_amount === undefined ? undefined : check.money('max_amount', body.max_amount, { min: 1n });
      const min = sentMin ?? w.existing?.minAmount ?? 0n;
      const max = sentMax ?? w.existing?.maxAmount ?? 0n;
      if (check.errors.min_amount === undefined && check.errors.max_amount === undefined && max < min)
        check.add('max_amount', 'The max amount field must be greater than or equal to the min amount.');
      check.throwIfFailed();
      const gateway = body.gateway ?? w.existing?.gateway ?? '';
      const configuration = configValues(w.ctx.keys, gateway, body.config, w.existing, new Date());
      return {
        name: body.name,
        code: body.code,
        gateway: body.gateway,
        minAmount: sentMin,
        maxAmount: sentMax,
        status: body.status,
        sort: body.sort,
        ...configuration,
      };
    },
    // Clients built from a method's configuration are dropped here and on every instance.
    afterCommit: async () => ctx.invalidation.publish(PAYMENT_METHODS_TOPIC),
  });
}
