import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { registerRawJsonScope } from '../../platform/http/raw-json.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import type { WithdrawalService } from './service.ts';

const Params = Type.Object({ gateway: Type.String({ pattern: '^[a-z0-9-]{1,64}$' }) });

const Body = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'Gateway-specific JSON, signed byte for byte like payment notifications. Sandbox: `{"reference": "<withdrawal reference>", "status": "paid" | "failed", "amount": <net amount>, "reason": "..."}`.',
  },
);

const Result = Type.Object({
  data: Type.Object({
    withdrawal_id: Type.Integer(),
    status: Type.Integer({ description: 'The withdrawal status after the notification.' }),
    duplicate: Type.Boolean({ description: 'True when nothing changed (a replay).' }),
  }),
});

/** POST /api/webhooks/payouts/:gateway: a payout paid or failed, applied exactly once. */
export function registerPayoutWebhookRoutes(app: App, service: WithdrawalService): void {
  registerRawJsonScope(app, (scope, rawBodyOf) => {
    scope.post(
      '/api/webhooks/payouts/:gateway',
      {
        config: { stateless: true, signedBy: 'gateway' },
        schema: {
          tags: ['Integrations'],
          summary: 'Payout gateway notification (HMAC-signed): completes or fails an approved withdrawal exactly once',
          params: Params,
          body: Body,
          response: { 200: Result, ...errorResponses },
        },
      },
      async (request) => {
        const result = await service.handlePayoutWebhook(request.params.gateway, rawBodyOf(request), request.headers, request.log);
        return { data: { withdrawal_id: result.withdrawalId, status: result.status, duplicate: result.duplicate } };
      },
    );
  });
}
