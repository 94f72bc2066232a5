import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../../platform/errors.ts';
import type { App } from '../../../platform/http/app.ts';
import { currentUser } from '../../../platform/http/guard.ts';
import { errorResponses, MessageBody } from '../../../platform/http/schemas.ts';
import { FlagFilter, flagValue } from '../../../platform/pagination/list.ts';
import { LAUNCH_LIMIT, LAUNCH_TOKEN_LIFE_S, type LaunchableGame, type LaunchService } from './service.ts';

const LaunchRecord = Type.Object({
  url: Type.String({ description: 'Where to open the game.' }),
  html: Type.Union([Type.String(), Type.Null()], { description: 'Markup to embed instead, for providers that give one.' }),
  token: Type.String({
    description:
      `The single-use launch token, valid for ${LAUNCH_TOKEN_LIFE_S} seconds; for a provider that keeps one token for the whole ` +
      'game session (Hub88), the session’s token, given to the provider and used by its calls alone.',
  }),
});

/** GET /api/provider-games/:game/launch (docs/api.md section 7). */
export function registerLaunchRoutes(app: App, service: LaunchService): void {
  // The game the path names, found before the query is validated (404 comes before 422).
  const found = new WeakMap<FastifyRequest, LaunchableGame>();

  app.get(
    '/api/provider-games/:game/launch',
    {
      config: { auth: true, verified: true },
      schema: {
        tags: ['Games'],
        summary: 'Launch a game: a new single-use token bound to the player, the game and the currency',
        description:
          '`:game` is the id (all digits) or the slug. A disabled or unknown game, or a game of a disabled provider, is a 404; ' +
          '`demo=1` plays without money where the provider allows it (422 on `demo` otherwise); 502 when the provider fails. ' +
          `At most ${LAUNCH_LIMIT} launches a minute per player (429 with \`Retry-After\` beyond, before the game is looked up).`,
        params: Type.Object({ game: Type.String({ maxLength: 255 }) }),
        querystring: Type.Object({ demo: Type.Optional(FlagFilter) }),
        response: { 200: Type.Object({ data: LaunchRecord }), 502: MessageBody, ...errorResponses },
      },
      preValidation: async (request) => {
        // The order of docs/api.md section 3: signed in and verified (the guard) → the player's own
        // gates (403, docs/regulation.md) → throttle (429) → the record in the path (404). The query
        // is not validated yet: only a well-formed demo flag makes the launch a demo one.
        const { demo } = request.query as { demo?: unknown };
        await service.assertMayLaunch(currentUser(request).id, typeof demo === 'string' && flagValue(demo));
        await service.throttle(currentUser(request).id);
        const { game } = request.params as { game?: unknown };
        const launchable = typeof game === 'string' ? await service.findLaunchable(game) : undefined;
        if (launchable === undefined) throw new NotFoundError();
        found.set(request, launchable);
      },
    },
    async (request, reply) => {
      const game = found.get(request);
      if (game === undefined) throw new NotFoundError();
      const demo = request.query.demo === undefined ? false : flagValue(request.query.demo);
      const language = request.headers['accept-language'];
      const client = {
        ip: request.ip,
        userAgent: request.headers['user-agent'],
        language: typeof language === 'string' ? language : undefined,
      };
      const data = await service.launch(currentUser(request).id, game, demo, client, request.log, request.session);
      // The token is a credential: no cache along the way may keep it.
      void reply.header('cache-control', 'no-store');
      return { data };
    },
  );
}
