import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { TopupService } from './service.ts';

const WebhookParams = Type.Object({ gateway: Type.String({ pattern: '^[a-z0-9-]{1,64}$' }) });

const WebhookBody = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'Gateway-specific JSON, signed byte for byte. Sandbox: `{"payment_id": "<gateway_payment_id>", "status": "paid" | "cancelled", "amount": 100.0}`.',
  },
);

/** The body exactly as received, for the signature; the parsed copy is normalised like any other. */
const rawBodies = new WeakMap<object, string>();

const WebhookResponse = Type.Object({
  data: Type.Object({
    topup_id: Type.Integer(),
    status: Type.Integer({ description: 'The top-up status after the notification.' }),
    duplicate: Type.Boolean({ description: 'True when nothing changed (a replay).' }),
  }),
});

/**
 * POST /api/webhooks/payments/:gateway (contract section 9). Its own plugin scope keeps the body
 * as the raw string: the signature covers the exact bytes, which a parse/serialize round trip
 * would not preserve.
 */
export function registerTopupWebhookRoutes(app: App, service: TopupService): void {
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      rawBodies.set(request, body as string);
      try {
        const parsed: unknown = JSON.parse(body as string);
        done(null, parsed !== null && typeof parsed === 'object' ? parsed : {});
      } catch (error) {
        (error as SyntaxError & { statusCode?: number }).statusCode = 400;
        done(error as SyntaxError, undefined);
      }
    });

    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/api/webhooks/payments/:gateway',
      {
        config: { stateless: true },
        schema: {
          tags: ['Integrations'],
          summary: 'Payment gateway notification (HMAC-signed, idempotent on the gateway payment id)',
          params: WebhookParams,
          body: WebhookBody,
          response: { 200: WebhookResponse, ...errorResponses },
        },
      },
      async (request) => {
        const { gateway } = request.params;
        const raw = rawBodies.get(request) ?? '';
        const result = await service.handleWebhook(gateway, raw, request.headers, request.log);
        return { data: { topup_id: result.topupId, status: result.status, duplicate: result.duplicate } };
      },
    );
  });
}
