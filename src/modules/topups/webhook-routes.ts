import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { registerRawJsonScope } from '../../platform/http/raw-json.ts';
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

const WebhookResponse = Type.Object({
  data: Type.Object({
    topup_id: Type.Integer(),
    status: Type.Integer({ description: 'The top-up status after the notification.' }),
    duplicate: Type.Boolean({ description: 'True when nothing changed (a replay).' }),
  }),
});

/** POST /api/webhooks/payments/:gateway (docs/api.md section 9), in a scope that keeps the raw body for the signature. */
export function registerTopupWebhookRoutes(app: App, service: TopupService): void {
  registerRawJsonScope(app, (scope, rawBodyOf) => {
    scope.post(
      '/api/webhooks/payments/:gateway',
      {
        config: { stateless: true, signedBy: 'gateway' },
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
        const result = await service.handleWebhook(gateway, rawBodyOf(request), request.headers, request.log);
        return { data: { topup_id: result.topupId, status: result.status, duplicate: result.duplicate } };
      },
    );
  });
}
