import { Type } from 'typebox';
import type { App } from '../../../platform/http/app.ts';
import { registerRawJsonScope } from '../../../platform/http/raw-json.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import type { ProviderCallbacks } from './provider-callbacks.ts';

const Params = Type.Object({
  provider: Type.String({ description: 'The provider’s id or code.' }),
  action: Type.String({ description: '`balance`, `bet`, `win` or `refund`; anything else is 404.' }),
});

const Body = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'The provider’s wire format, signed byte for byte. Built-in protocol (adapter `demo`, docs/games.md): `balance {token}`, ' +
      '`bet {token, transaction_id, round_id, game, amount, currency}`, `win {transaction_id, bet_transaction_id, round_id, amount, ' +
      'currency, round_closed?}`, `refund {transaction_id, bet_transaction_id}`; amounts in currency units.',
  },
);

const Answer = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'Every business outcome, in the provider’s words. Built-in protocol: `{"status": "OK" | <code>, "balance", "currency", ' +
      '"transaction_id"?, "session"?}`.',
  },
);

/**
 * POST /api/providers/:provider/wallet/:action (docs/api.md section 9, docs/games.md "Seamless
 * wallet"): a game provider's callback. Machine callers: no cookies, no CSRF; the raw body is
 * kept for the signature.
 */
export function registerProviderCallbackRoutes(app: App, service: ProviderCallbacks): void {
  registerRawJsonScope(app, (scope, rawBodyOf) => {
    scope.post(
      '/api/providers/:provider/wallet/:action',
      {
        config: { stateless: true, signedBy: 'provider' },
        schema: {
          tags: ['Integrations'],
          summary:
            'Seamless wallet callback from a game provider (signed with its wallet secret): balance, bet, win or refund, each money call applied exactly once',
          params: Params,
          body: Body,
          response: { 200: Answer, ...errorResponses },
        },
      },
      async (request) =>
        service.handle({
          provider: request.params.provider,
          action: request.params.action,
          rawBody: rawBodyOf(request),
          headers: request.headers,
          log: request.log,
        }),
    );
  });
}
