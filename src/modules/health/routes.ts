import { Type } from 'typebox';
import type { App } from '../../platform/http/app.ts';
import { ServiceUnavailableError } from '../../platform/errors.ts';
import { MessageBody } from '../../platform/http/schemas.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Readiness } from './readiness.ts';

const Status = Type.Object({ status: Type.String() });

export function registerHealthRoutes(app: App, readiness: Readiness): void {
  // Liveness: the process answers, whatever the database and Redis do (a restart would not bring them back).
  app.get('/health', { config: { stateless: true }, schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
  // Ready means the database answers and holds the schema this code expects (docs/api.md section 11),
  // and Redis answers when sessions live there: without it no signed-in request can be served.
  app.get(
    '/ready',
    { config: { stateless: true }, schema: { hide: true, response: { 200: Status, 503: MessageBody } } },
    async (request) => {
      let pending: string[];
      try {
        pending = await readiness.pending();
      } catch (error) {
        request.log.warn({ err: loggableError(error) }, 'database is not answering');
        throw new ServiceUnavailableError();
      }
      if (pending.length > 0) {
        request.log.warn({ pending }, 'database is not migrated');
        throw new ServiceUnavailableError();
      }
      if (!(await readiness.redisAnswers())) {
        request.log.warn('Redis is not answering');
        throw new ServiceUnavailableError();
      }
      return { status: 'ok' };
    },
  );
}
