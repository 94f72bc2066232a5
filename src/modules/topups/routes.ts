import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses, MessageBody } from '../../platform/http/schemas.ts';
import { rateToPercent, toUnits } from '../../platform/money.ts';
import { registerCustomerList } from '../../platform/pagination/customer-list.ts';
import { presentTopup, statusFilter, TopupRecord } from './present.ts';
import { topupFields, type TopupRow } from './repository.ts';
import type { TopupService } from './service.ts';
import { registerTopupWebhookRoutes } from './webhook-routes.ts';
import { registerAdminTopupRoutes } from './admin-routes.ts';
import { topups } from './tables.ts';

const tags = ['Top-ups'];

const CreateBody = Type.Object({
  payment_method_id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    'x-message': 'The selected payment method id is invalid.',
  }),
  amount: Type.Union([Type.Number(), Type.String()], { description: 'Currency units, at most 2 decimals, within the method’s min/max.' }),
});

/** Customer top-ups (docs/api.md section 7), the gateway webhook and the admin top-up endpoints. */
export function registerTopupRoutes(app: App, ctx: AppContext, service: TopupService): void {
  const present = (row: TopupRow) => presentTopup(row, ctx.config.appUrl);

  app.post(
    '/api/topups',
    {
      config: { auth: true, verified: true },
      schema: {
        tags,
        summary: 'Start a top-up: answers the payment page URL and the PIX copy-and-paste code',
        body: CreateBody,
        response: { 201: Type.Object({ data: TopupRecord }), 502: MessageBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const topup = await service.create(currentUser(request).id, body.payment_method_id, body.amount, request.log);
      return reply.code(201).send({ data: present(topup) });
    },
  );

  registerCustomerList(app, ctx, {
    path: '/api/topups',
    tags,
    summary: 'The signed-in user’s top-ups, newest first',
    source: { table: topups, select: topupFields, filters: { status: statusFilter } },
    scope: { owner: topups.userId },
    record: TopupRecord,
    present,
  });

  app.get(
    '/api/topup-options',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Top-up amounts with a gift rate',
        response: {
          200: Type.Object({ data: Type.Object({ options: Type.Array(Type.Object({ value: Type.Number(), rate: Type.Number() })) }) }),
          ...errorResponses,
        },
      },
    },
    async () => {
      const options = await service.options();
      return { data: { options: options.map((option) => ({ value: toUnits(option.value), rate: rateToPercent(option.rate) })) } };
    },
  );

  registerTopupWebhookRoutes(app, service);
  registerAdminTopupRoutes(app, ctx, service);
}
