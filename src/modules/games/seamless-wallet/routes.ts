import { Type } from 'typebox';
import type { App } from '../../../platform/http/app.ts';
import { registerRawJsonScope } from '../../../platform/http/raw-json.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import type { GameAdapters } from '../adapters/adapter.ts';
import type { ProviderCallbacks } from './provider-callbacks.ts';

const Params = Type.Object({
  provider: Type.String({ description: 'The provider’s id or code.' }),
  action: Type.String({ description: '`balance`, `bet`, `win` or `refund`; anything else is 404.' }),
});

const ProviderParams = Type.Object({ provider: Type.String({ description: 'The provider’s id or code.' }) });

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

/** What each of Hub88's paths is, for the OpenAPI document (docs/api.md section 15). */
const OWN_PATH_SUMMARY: Record<string, string> = {
  player: 'the player by its `user` (no money moves)',
  balance: 'the balance of the session its token names',
  bet: 'a stake taken once by its transaction id',
  win: 'a win paid once by its transaction id, for the bet it references',
  refund: 'the rollback of the bet it references, applied once',
};

/**
 * POST /api/providers/:provider/wallet/:action (docs/api.md section 9, docs/games.md "Seamless
 * wallet"): a game provider's callback. Machine callers: no cookies, no CSRF; the raw body is
 * kept for the signature. An adapter with paths of its own (`walletPaths`, Hub88's
 * `/api/providers/:provider/hub88/transaction/bet`…, docs/api.md section 15) gets each of them,
 * answered in its protocol's words even for a body that is not JSON.
 */
export function registerProviderCallbackRoutes(app: App, service: ProviderCallbacks, adapters: GameAdapters): void {
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
          path: request.url,
          ip: request.ip,
          log: request.log,
        }),
    );
  });

  for (const code of adapters.codes()) {
    const adapter = adapters.get(code)!;
    const paths = adapter.walletPaths;
    if (paths === undefined) continue;
    registerRawJsonScope(
      app,
      (scope, rawBodyOf) => {
        for (const [path, action] of Object.entries(paths)) {
          scope.post(
            `/api/providers/:provider/${adapter.code}/${path}`,
            {
              config: { stateless: true, signedBy: adapter.signedBy ?? 'provider' },
              schema: {
                tags: ['Integrations'],
                summary: `${adapter.code} wallet call \`/${path}\`: ${OWN_PATH_SUMMARY[action] ?? action}, in ${adapter.code}’s own protocol`,
                description:
                  `A provider whose adapter is \`${adapter.code}\`, by id or code (404 otherwise). Signed and answered as ${adapter.code} ` +
                  'documents its protocol: every outcome, a refused signature or an unreadable body included, is an HTTP 200 in its words.',
                params: ProviderParams,
                body: Type.Object({}, { additionalProperties: true, description: `${adapter.code}’s request body, signed byte for byte.` }),
                response: {
                  200: Type.Object({}, { additionalProperties: true, description: `${adapter.code}’s answer.` }),
                  ...errorResponses,
                },
              },
            },
            async (request) =>
              service.handle({
                provider: request.params.provider,
                action: path,
                via: adapter.code,
                rawBody: rawBodyOf(request),
                headers: request.headers,
                path: request.url,
                ip: request.ip,
                log: request.log,
              }),
          );
        }
      },
      { keepMalformed: true },
    );
  }
}
