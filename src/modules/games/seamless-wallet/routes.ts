import { Type } from 'typebox';
import type { AppContext } from '../../../platform/context.ts';
import type { App } from '../../../platform/http/app.ts';
import { registerRawJsonScope } from '../../../platform/http/raw-json.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import type { GameAdapters } from '../adapters/adapter.ts';
import { registerProviderBetRoutes } from '../provider-bets/routes.ts';
import { registerDemoGameRoutes } from '../demo-provider/routes.ts';
import { GameWalletService } from './provider-callbacks.ts';

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
 * The seamless wallet (docs/games.md): the providers' callbacks, the rounds they record (the
 * players' and the operators' lists) and the built-in demo game that plays through them.
 */
export function registerGameWalletRoutes(app: App, ctx: AppContext, adapters: GameAdapters): void {
  registerWalletCallback(app, new GameWalletService(ctx, adapters));
  registerProviderBetRoutes(app, ctx);
  registerDemoGameRoutes(app, ctx, app);
}

/**
 * POST /api/providers/:provider/wallet/:action (contract section 9): a game provider's seamless
 * wallet callback. Machine callers: no cookies, no CSRF; the raw body is kept for the signature.
 */
function registerWalletCallback(app: App, service: GameWalletService): void {
  registerRawJsonScope(app, (scope, rawBodyOf) => {
    scope.post(
      '/api/providers/:provider/wallet/:action',
      {
        config: { stateless: true },
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
