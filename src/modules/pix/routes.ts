import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { registerResource } from '../../platform/admin/resource.ts';
import { errorResponses, MessageBody } from '../../platform/http/schemas.ts';
import type { PixMethods } from '../payments/pix-api/methods.ts';
import { pixPaymentsResource } from './admin-pix-payments.ts';
import { LookupBudget } from './lookup-budget.ts';
import { PixNotifications, warnOfMethodsWithoutToken } from './notifications.ts';
import { PixReceipts } from './receipts.ts';
import { PixReconciler, RECONCILE_LOCK } from './reconciliation.ts';
import { PixReturns } from './returns.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** PIX reconciliation (tests run passes by hand: PIX_RECONCILE_S=0 keeps its timer off). */
    pixReconciler: PixReconciler;
    /** PIX notifications (payouts add their item handler). */
    pixNotifications: PixNotifications;
  }
}

const Params = Type.Object({ code: Type.String({ maxLength: 64, pattern: '^[a-z0-9-]{1,64}$' }) });

const Query = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 256, description: 'The method’s `webhook_token`, when it has one.' })),
  ignorar: Type.Optional(
    Type.String({
      maxLength: 256,
      description: 'Ignored. Efí appends `/pix` to the whole registered URL, which therefore ends in `&ignorar=` (docs/api.md section 13).',
    }),
  ),
});

const Body = Type.Object(
  {
    pix: Type.Optional(
      Type.Array(Type.Unknown(), {
        description: 'API Pix’s received payments (schema Pix): each is confirmed with the PSP before anything is done.',
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'A PSP notification: `{"pix": [...]}`, or the bare array Banco Inter posts (docs/payments.md); any other JSON object is answered 200 and ignored.',
  },
);

/**
 * Receiving PIX through API Pix methods (docs/api.md section 13): the notification routes, and
 * reconciliation started on every instance once ready (only the one holding its lock works).
 */
export function registerPixRoutes(app: App, ctx: AppContext, methods: PixMethods): void {
  const returns = new PixReturns(ctx, methods);
  const receipts = new PixReceipts(ctx, returns);
  const notifications = new PixNotifications(methods, receipts, new LookupBudget(ctx.limiter, ctx.config.pixNotificationLookupsPerMin));
  const reconciler = new PixReconciler(
    ctx,
    { methods, receipts, returns },
    { lock: ctx.database.leaderLock(RECONCILE_LOCK), log: app.log },
  );
  app.decorate('pixNotifications', notifications);
  app.decorate('pixReconciler', reconciler);
  registerPixWebhookRoutes(app, notifications);
  registerResource(app, ctx, pixPaymentsResource);
  app.addHook('onReady', async () => warnOfMethodsWithoutToken(methods, app.log));
  if (ctx.config.pixReconcileS > 0) app.addHook('onReady', async () => reconciler.start(ctx.config.pixReconcileS));
  app.addHook('onClose', async () => {
    await reconciler.stop();
    await notifications.drain();
  });
}

/**
 * POST /api/webhooks/pix/{code} and /api/webhooks/pix/{code}/pix: a PSP's notification for the
 * payment method `code`. No cookies, no CSRF: a PSP is no browser.
 */
function registerPixWebhookRoutes(app: App, notifications: PixNotifications): void {
  for (const path of ['/api/webhooks/pix/:code', '/api/webhooks/pix/:code/pix']) {
    app.post(
      path,
      {
        // Banco Inter posts the items as a bare array, read as the standard's `{"pix": [...]}`.
        config: { stateless: true, arrayBodyAs: 'pix' },
        schema: {
          tags: ['Integrations'],
          summary: 'API Pix notification: every item is confirmed with the PSP, and credited or returned once per endToEndId',
          params: Params,
          querystring: Query,
          body: Body,
          response: { 200: MessageBody, ...errorResponses },
        },
      },
      async (request) => {
        const { code } = request.params;
        await notifications.accept(code, request.query.token, request.body.pix, request.log);
        return { message: 'OK' };
      },
    );
  }
}
