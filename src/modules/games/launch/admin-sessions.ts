import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import type { AppContext } from '../../../platform/context.ts';
import { idExists } from '../../../platform/db/exists.ts';
import type { App } from '../../../platform/http/app.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { equals, IdFilter, listQuerySchema, listSource, pageSchema, paginate } from '../../../platform/pagination/list.ts';
import { users } from '../../users/tables.ts';
import { gameSessions } from '../tables.ts';

const Time = Type.String({ format: 'date-time' });
const NullableTime = Type.Union([Time, Type.Null()]);

/** A game session as staff see it: where and when, never its launch or session token (nor their hashes). */
const GameSessionRecord = Type.Object({
  id: Type.Integer(),
  provider: Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() }),
  game: Type.Object({ id: Type.Integer(), name: Type.String() }),
  currency: Type.String(),
  demo: Type.Boolean(),
  created_at: Time,
  redeemed_at: NullableTime,
  expires_at: Time,
  ends_at: NullableTime,
  open: Type.Boolean({ description: 'Whether it can still take a bet: neither expired nor past its end (ends_at).' }),
});

const session = sql.raw('"game_sessions"');
const source = listSource({
  table: gameSessions,
  // Named columns only: the token hashes are never read.
  select: {
    id: gameSessions.id,
    providerId: gameSessions.providerId,
    providerCode: sql<string>`(select code from providers where providers.id = ${session}.provider_id)`,
    providerName: sql<string>`(select name from providers where providers.id = ${session}.provider_id)`,
    gameId: gameSessions.providerGameId,
    gameName: sql<string>`(select name from provider_games where provider_games.id = ${session}.provider_game_id)`,
    currency: gameSessions.currency,
    demo: gameSessions.demo,
    createdAt: gameSessions.createdAt,
    redeemedAt: gameSessions.redeemedAt,
    expiresAt: gameSessions.expiresAt,
    endsAt: gameSessions.endsAt,
    open: sql<boolean>`(${session}.expires_at > now() and (${session}.ends_at is null or ${session}.ends_at > now()))`,
  },
  // The user comes from the path, never from the query string (the schema below lacks it).
  filters: { user_id: equals(gameSessions.userId, IdFilter) },
});
const query = listQuerySchema({ filters: {}, search: [], timestamp: gameSessions.createdAt });
const Params = Type.Object({ user: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

/** `GET /api/admin/users/:user/game-sessions`: the user's game sessions, newest first, for a player's page. */
export function registerAdminGameSessionRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/api/admin/users/:user/game-sessions',
    {
      config: { permission: 'users.view', pathRecord: { param: 'user', exists: idExists(users) } },
      schema: {
        tags: ['Admin: users'],
        summary: 'List a user’s game sessions (paginated, newest first)',
        params: Params,
        querystring: query,
        response: { 200: pageSchema(GameSessionRecord), ...errorResponses },
      },
    },
    async (request) => {
      const path = `/api/admin/users/${request.params.user}/game-sessions`;
      const page = await paginate(ctx.db, source, { ...request.query, user_id: request.params.user }, { base: ctx.config.appUrl, path });
      return {
        ...page,
        data: page.data.map((row) => ({
          id: row.id,
          provider: { id: row.providerId, code: row.providerCode, name: row.providerName },
          game: { id: row.gameId, name: row.gameName },
          currency: row.currency,
          demo: row.demo,
          created_at: row.createdAt.toISOString(),
          redeemed_at: row.redeemedAt?.toISOString() ?? null,
          expires_at: row.expiresAt.toISOString(),
          ends_at: row.endsAt?.toISOString() ?? null,
          open: row.open,
        })),
      };
    },
  );
}
