import { Type } from 'typebox';
import { registerResource } from '../../../platform/admin/resource.ts';
import type { AppContext } from '../../../platform/context.ts';
import { NotFoundError } from '../../../platform/errors.ts';
import type { App } from '../../../platform/http/app.ts';
import { sendKeptOr, serializeForRoute } from '../../../platform/http/json-text.ts';
import { columnPresenter } from '../../../platform/http/record.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { pageSchema } from '../../../platform/pagination/list.ts';
import type { Storage } from '../../../platform/storage/storage.ts';
import type { GameAdapters } from '../adapters/adapter.ts';
import { providerGamesResource } from './admin-provider-games.ts';
import { providersResource } from './admin-providers.ts';
import { gamesQuery, providersQuery, type Catalogue } from './catalogue.ts';
import { customerProviderFields, ProviderGameRecord, providerGamePresenter, ProviderRecord } from './records.ts';

const tags = ['Games'];
const ProviderParams = Type.Object({
  provider: Type.String({ maxLength: 255, description: 'The provider id (all digits) or its code.' }),
});

/** The customer catalogue (docs/api.md section 7) and the admin providers and provider games. */
export function registerCatalogueRoutes(
  app: App,
  ctx: AppContext,
  deps: { catalogue: Catalogue; adapters: GameAdapters; storage: Storage },
): void {
  const { catalogue } = deps;
  const presentGame = providerGamePresenter(ctx.config.appUrl, ctx.config.regulation);
  const presentProvider = columnPresenter(ProviderRecord, customerProviderFields);

  app.get(
    '/api/providers',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Enabled game providers, by sort then id',
        querystring: providersQuery,
        response: { 200: pageSchema(ProviderRecord), ...errorResponses },
      },
    },
    // Like the game list below: a cache hit is answered without a promise.
    (request, reply) =>
      sendKeptOr(request, reply, catalogue.keptProvidersPage(request.query), () =>
        catalogue.providersPage(request.query, (page) => serializeForRoute(reply, { ...page, data: page.data.map(presentProvider) })),
      ),
  );

  app.get(
    '/api/providers/:provider/games',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The enabled games of an enabled provider, by sort then id; 404 for a disabled or unknown provider',
        params: ProviderParams,
        querystring: gamesQuery,
        response: { 200: pageSchema(ProviderGameRecord), ...errorResponses },
      },
      // The provider in the path is looked up after sign-in and before the query is validated:
      // a disabled or unknown one is a 404 whatever the query (docs/api.md section 3). Cache hits
      // are answered without a promise here and in the handler: this is the platform's hottest read.
      // Each either calls `done` (sends) or returns a promise, never both.
      preValidation: (request, _reply, done) => {
        const { provider } = request.params as { provider?: unknown };
        if (typeof provider !== 'string') return done(new NotFoundError());
        const known = catalogue.knownProviderId(provider);
        if (known !== undefined) return done(known === null ? new NotFoundError() : undefined);
        return catalogue.enabledProviderId(provider).then((id) => {
          if (id === null) throw new NotFoundError();
        });
      },
    },
    (request, reply) => {
      const { provider } = request.params;
      return sendKeptOr(request, reply, catalogue.keptGamesPage(provider, request.query), async () => {
        const body = await catalogue.gamesPage(provider, request.query, (page) =>
          serializeForRoute(reply, { ...page, data: page.data.map(presentGame) }),
        );
        // Disabled since the check before validation.
        if (body === null) throw new NotFoundError();
        return body;
      });
    },
  );

  registerResource(app, ctx, providersResource(ctx, deps.adapters));
  registerResource(app, ctx, providerGamesResource(ctx, deps.storage));
}
