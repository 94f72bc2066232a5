import type { BaseLogger } from 'pino';

/**
 * What a service may log with: the levels of pino's logger, which a route passes in as its
 * request's logger (`request.log`, so the lines carry the request id) and a job as the app's. A
 * service names this instead of Fastify's logger type, so it never depends on the HTTP layer.
 */
export type Logger = Pick<BaseLogger, 'error' | 'warn' | 'info' | 'debug'>;
