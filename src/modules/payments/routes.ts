import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { listQuerySchema, pageSchema, paginate, type ListQuery, type ListSpec } from '../../platform/admin/list.ts';
import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { paymentMethodsResource } from './admin-payment-methods.ts';
import type { PaymentGateways } from './gateways/gateway.ts';
import { PaymentMethodRecord, presentPaymentMethod, type PaymentMethodRow } from './methods.ts';

/** Customers see enabled methods only; the filter is pinned, not offered in the query string. */
const enabledMethods: ListSpec = {
  table: 'payment_methods',
  alias: 'm',
  select: sql`m.*`,
  filters: { enabled: { schema: Type.Integer(), where: (_value: number, alias: string) => sql`${sql.raw(alias)}.status = 1` } },
  search: [],
  sort: 'sort',
  timestamp: null,
};

/** Customer payment methods and the admin payment-method CRUD. */
export function registerPaymentRoutes(app: App, ctx: AppContext, gateways: PaymentGateways): void {
  app.get(
    '/api/payment-methods',
    {
      config: { auth: true },
      schema: {
        tags: ['Top-ups'],
        summary: 'Enabled payment methods, by sort',
        querystring: listQuerySchema({ filters: {}, search: [], timestamp: null }),
        response: { 200: pageSchema(PaymentMethodRecord), ...errorResponses },
      },
    },
    async (request) => {
      const query = { ...(request.query as ListQuery), enabled: 1 };
      const page = await paginate<PaymentMethodRow>(ctx.db, enabledMethods, query, {
        base: ctx.config.appUrl,
        path: '/api/payment-methods',
      });
      return { ...page, data: page.data.map(presentPaymentMethod) };
    },
  );

  registerResource(app, ctx, paymentMethodsResource(gateways));
}
