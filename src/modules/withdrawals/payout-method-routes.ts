import { Type } from 'typebox';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { MAX_ID } from '../../platform/pagination/list.ts';
import { partialUpdate } from '../../platform/validation.ts';
import type { PayoutChoice, PayoutMethodService } from './payout-method.ts';

const PayoutSettings = Type.Object({
  payment_method_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The payment method whose account pays approved withdrawals out; null: the built-in sandbox (the default).',
  }),
  code: Type.Union([Type.String(), Type.Null()], { description: 'That method’s code.' }),
  gateway: Type.String({ description: 'The gateway that pays: `sandbox` or `efi`.' }),
});
const Wrapped = Type.Object({ data: PayoutSettings });
// Required, and null is a value here (Laravel's `nullable`): it goes back to the built-in sandbox.
const Body = partialUpdate(
  Type.Object({
    payment_method_id: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_ID }), Type.Null()], {
      description: 'A payment method of a gateway that pays out (`sandbox` or `efi`); null goes back to the built-in sandbox.',
    }),
  }),
  [],
);

function present(choice: PayoutChoice) {
  return { payment_method_id: choice.paymentMethodId, code: choice.code, gateway: choice.gateway };
}

/** GET/PUT /api/admin/settings/payouts (docs/api.md section 13b): which payment method pays withdrawals out. */
export function registerPayoutMethodRoutes(app: App, service: PayoutMethodService): void {
  const tags = ['Admin: settings'];
  app.get(
    '/api/admin/settings/payouts',
    {
      config: { permission: 'settings.view' },
      schema: { tags, summary: 'The payment method that pays approved withdrawals out', response: { 200: Wrapped, ...errorResponses } },
    },
    async () => ({ data: present(await service.current()) }),
  );
  app.put(
    '/api/admin/settings/payouts',
    {
      config: { permission: 'settings.manage' },
      schema: {
        tags,
        summary: 'Choose the payment method that pays approved withdrawals out (its gateway must pay out: sandbox or efi; else 422)',
        body: Body,
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({ data: present(await service.choose(operationEntry(request), request.body.payment_method_id)) }),
  );
}
