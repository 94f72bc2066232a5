import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { listFunctions } from '../../platform/db/functions.ts';
import { listMigrations, pendingMigrations } from '../../platform/db/migrate.ts';
import { ServiceUnavailableError } from '../../platform/errors.ts';
import { MessageBody } from '../../platform/http/schemas.ts';
import { loggableError } from '../../platform/log-safety.ts';
import { redisAnswers } from '../../platform/redis.ts';

const Status = Type.Object({ status: Type.String() });

export function registerHealthRoutes(app: App, ctx: AppContext): void {
  // The migrations and function files this code needs, read once: the probe itself only asks the database.
  const migrations = listMigrations().map((migration) => migration.name);
  const functions = listFunctions().map((file) => file.name);
  // Liveness: the process answers, whatever the database and Redis do (a restart would not bring them back).
  app.get('/health', { config: { stateless: true }, schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
  // Ready means the database answers and holds the schema this code expects (contract section 11),
  // and Redis answers when sessions live there: without it no signed-in request can be served.
  app.get(
    '/ready',
    { config: { stateless: true }, schema: { hide: true, response: { 200: Status, 503: MessageBody } } },
    async (request) => {
      let pending: string[];
      try {
        pending = await pendingMigrations(ctx.db, migrations, functions);
      } catch (error) {
        request.log.warn({ err: loggableError(error) }, 'database is not answering');
        throw new ServiceUnavailableError();
      }
      if (pending.length > 0) {
        request.log.warn({ pending }, 'database is not migrated');
        throw new ServiceUnavailableError();
      }
      if (ctx.redis !== undefined && !(await redisAnswers(ctx.redis))) {
        request.log.warn('Redis is not answering');
        throw new ServiceUnavailableError();
      }
      return { status: 'ok' };
    },
  );
}
