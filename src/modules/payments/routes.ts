import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { listQuerySchema, pageSchema, paginate, type ListQuery, type ListSpec } from '../../platform/admin/list.ts';
import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { NotFoundError } from '../../platform/errors.ts';
import { errorResponses, MessageBody } from '../../platform/http/schemas.ts';
import { findTopupByPublicId } from '../topups/repository.ts';
import { paymentMethodsResource } from './admin-payment-methods.ts';
import { gatewaysOf } from './gateways/registry.ts';
import { PaymentMethodRecord, presentPaymentMethod, type PaymentMethodRow } from './methods.ts';
import { renderPayPage } from './pay-page.ts';

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

/** Customer payment methods, the payment page and the admin payment-method CRUD. */
export function registerPaymentRoutes(app: FastifyInstance, ctx: AppContext): void {
  const gateways = gatewaysOf(app, ctx);
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

  app.get(
    '/pay/:public_id',
    {
      config: { stateless: true },
      schema: {
        tags: ['Top-ups'],
        summary: 'Payment page of a top-up (HTML with the PIX QR code and copy-and-paste text)',
        params: Type.Object({ public_id: Type.String({ pattern: '^[A-Za-z0-9]{24}$' }) }),
        response: { 200: Type.String({ description: 'text/html' }), 404: MessageBody, 500: MessageBody },
      },
    },
    async (request, reply) => {
      const topup = await findTopupByPublicId(ctx.db, (request.params as { public_id: string }).public_id);
      if (topup === undefined) throw new NotFoundError();
      const html = await renderPayPage(topup, ctx.config.appName);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
        .header('x-frame-options', 'DENY')
        .send(html);
    },
  );

  registerResource(app, ctx, paymentMethodsResource(gateways));
}
