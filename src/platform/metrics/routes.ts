import cluster from 'node:cluster';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../crypto.ts';
import { UnauthenticatedError } from '../errors.ts';
import { joinClusterMetrics } from './cluster.ts';
import type { Metrics } from './registry.ts';

/** Requests that matched no route share one label, so unknown paths cannot grow the label set. */
const UNMATCHED = 'unmatched';

/**
 * The request histogram (one hook at response time, reading Fastify's own elapsed time) and
 * GET /metrics in Prometheus' text format (under `serve --workers`, summed over the workers), behind `Authorization: Bearer <token>` when a token
 * is configured. Registered only when metrics are on: off, the route is a plain 404 and no
 * request pays for the hook.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    metrics.observeRequest(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const collect = cluster.isWorker ? joinClusterMetrics(metrics.registry) : () => metrics.registry.metrics();
  const expected = token === undefined ? undefined : `Bearer ${token}`;
  app.get('/metrics', { config: { stateless: true }, schema: { hide: true } }, async (request, reply) => {
    if (expected !== undefined) {
      const sent = request.headers.authorization;
      if (typeof sent !== 'string' || !safeEqual(sent, expected)) throw new UnauthenticatedError();
    }
    const text = await collect();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
