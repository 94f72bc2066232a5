import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';

const Status = Type.Object({ status: Type.String() });

export function registerHealthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/health', { config: { stateless: true }, schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));
  app.get(
    '/ready',
    { config: { stateless: true }, schema: { hide: true, response: { 200: Status, 503: Status } } },
    async (request, reply) => {
      try {
        await ctx.database.ping();
        return { status: 'ok' };
      } catch (error) {
        request.log.warn({ err: error }, 'database is not answering');
        return reply.code(503).send({ status: 'unavailable' });
      }
    },
  );
}
