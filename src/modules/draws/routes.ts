import { and, getTableColumns, inArray, sql } from 'drizzle-orm';
import { Type } from 'typebox';
import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import { IdempotencyKeyHeaders, idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { registerCustomerList } from '../../platform/pagination/customer-list.ts';
import { equals, filter, IdFilter, listQuerySchema, MAX_ID, pageSchema } from '../../platform/pagination/list.ts';
import { games } from '../games/tables.ts';
import { registerAdminDrawRoutes } from './admin-routes.ts';
import {
  BetRecord,
  BetStatusFilter,
  DrawRecord,
  GameDetailRecord,
  GameRecord,
  presentBet,
  presentDraw,
  presentGame,
  presentGameDetail,
  VerificationRecord,
} from './present.ts';
import { betFields, betStatus, drawHistory } from './repository.ts';
import { DrawScheduler } from './scheduler.ts';
import type { DrawService } from './service.ts';
import { drawBets } from './tables.ts';
import { GAME_TYPES } from './types/registry.ts';

const tags = ['Draw games'];

declare module 'fastify' {
  interface FastifyInstance {
    /** The draw scheduler of this app (built in app.ts); tests tick it by hand. */
    drawScheduler: DrawScheduler;
  }
}

/** A game named in a path: its id, or its code (docs/api.md section 4). Anything else names no game (404). */
const GameParams = Type.Object({
  // An id without a leading zero, or a code with a letter (the slug rule): `01` is neither.
  game: Type.String({
    pattern: '^([1-9][0-9]{0,15}|(?=[a-z0-9-]*[a-z])[a-z0-9]+(-[a-z0-9]+)*)$',
    maxLength: 64,
    description: 'The game’s id or code.',
  }),
});
const DrawParams = Type.Object({ draw: Type.Integer({ minimum: 1, maximum: MAX_ID }) });

const BetBody = Type.Object({
  selection: Type.String({ maxLength: 32, description: 'A selection `code` of the game (GET /api/games/:game).' }),
  amount: Type.Union([Type.Number(), Type.String()], { description: 'Currency units, at most 2 decimals, within the game’s min/max bet.' }),
  draw_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      description: 'The draw the player means; a bet arriving after it closed is refused instead of landing on the next draw.',
    }),
  ),
});

const gamesScope = and(inArray(games.status, [1, 2]), inArray(games.type, [...GAME_TYPES.keys()]))!;

const historyQuery = listQuerySchema({ ...drawHistory, filters: { status: drawHistory.filters.status! } });

/** The draw games' player routes and admin records (docs/draws.md). */
export function registerDrawRoutes(app: App, ctx: AppContext, service: DrawService): void {
  registerCustomerList(app, ctx, {
    path: '/api/games',
    tags,
    summary: 'The in-house draw games a player can open (enabled and in maintenance), by sort',
    source: {
      table: games,
      select: getTableColumns(games),
      sort: games.sort,
      filters: { type: equals(games.type, Type.String({ maxLength: 64 })) },
    },
    scope: { where: gamesScope },
    record: GameRecord,
    present: (game) => presentGame(game, ctx.config.regulation),
  });

  app.get(
    '/api/games/:game',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'A draw game: its selections and odds, the draw open for bets with its seed hash and countdowns, and the last result',
        params: GameParams,
        response: { 200: Type.Object({ data: GameDetailRecord }), ...errorResponses },
      },
    },
    async (request) => ({ data: presentGameDetail(await service.view(request.params.game), ctx.config.regulation) }),
  );

  app.get(
    '/api/games/:game/draws',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The game’s past draws, newest first: results, winning selections and revealed seeds',
        params: GameParams,
        querystring: historyQuery,
        response: { 200: pageSchema(DrawRecord), ...errorResponses },
      },
    },
    async (request) => {
      const url = { base: ctx.config.appUrl, path: `/api/games/${request.params.game}/draws` };
      const page = await service.history(request.params.game, request.query, url);
      return { ...page, data: page.data.map(presentDraw) };
    },
  );

  app.post(
    '/api/games/:game/bets',
    {
      config: { auth: true, verified: true },
      schema: {
        tags,
        summary:
          'Bet on the open draw: the stake leaves the balance at once; refused (422) once betting closed, in maintenance, outside the min/max bet or beyond the balance; an Idempotency-Key header makes a retry answer the first bet',
        params: GameParams,
        headers: IdempotencyKeyHeaders,
        body: BetBody,
        response: { 201: Type.Object({ data: BetRecord }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { bet } = await service.placeBet({
        userId: currentUser(request).id,
        game: request.params.game,
        selection: request.body.selection,
        amount: request.body.amount,
        drawId: request.body.draw_id,
        idempotencyKey: idempotencyKeyOf(request.headers),
      });
      return reply.code(201).send({ data: presentBet(bet) });
    },
  );

  registerCustomerList(app, ctx, {
    path: '/api/bets',
    tags,
    summary: 'The signed-in player’s draw bets, newest first',
    source: {
      table: drawBets,
      select: betFields,
      filters: {
        game_id: equals(drawBets.gameId, IdFilter),
        draw_id: equals(drawBets.drawId, IdFilter),
        status: filter(BetStatusFilter, (param) => sql`${betStatus} = ${param}`),
        selection: equals(drawBets.selection, Type.String({ maxLength: 32 })),
      },
    },
    scope: { owner: drawBets.userId },
    record: BetRecord,
    present: presentBet,
  });

  app.get(
    '/api/draws/:draw/verify',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Recompute a drawn draw from its revealed seed: does the seed match the published hash, and the result the recorded one?',
        params: DrawParams,
        response: { 200: Type.Object({ data: VerificationRecord }), ...errorResponses },
      },
    },
    async (request) => ({ data: await service.verify(request.params.draw) }),
  );

  registerAdminDrawRoutes(app, ctx, service);
}

/**
 * The scheduler: decorated on the app, started when the app is ready (unless DRAW_SCHEDULER=off)
 * and stopped, with its lead given up, when the app closes.
 */
export function registerDrawScheduler(app: App, ctx: AppContext, clock: Clock): DrawScheduler {
  const scheduler = new DrawScheduler(ctx, { clock, log: app.log });
  app.decorate('drawScheduler', scheduler);
  if (ctx.config.drawScheduler) app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', () => scheduler.stop());
  return scheduler;
}
