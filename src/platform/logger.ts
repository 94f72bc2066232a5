import type { BaseLogger } from 'pino';

/**
 * What a service logs through: a request's `request.log` or the app's logger both fit, so a
 * service names no Fastify type and a caller outside HTTP (the scheduler, a command, a test)
 * hands it any pino logger.
 */
export type Logger = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;
