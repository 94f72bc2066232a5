import type { FastifyRequest } from 'fastify';

const USER_ID = Symbol('croupier.log.userId');

/** A logger that may know whose request it logs; pino's children inherit it through their prototype. */
type Tagged = { [USER_ID]?: number };

/**
 * Names the signed-in user in every later line of this request's log (the request's and the
 * reply's logger are the same per-request child, which already carries `reqId`). Only a mark on
 * the logger: `logMixin` writes it into the lines actually logged, so a request that logs
 * nothing pays nothing for it.
 */
export function logUserOf(request: FastifyRequest, userId: number): void {
  (request.log as Tagged)[USER_ID] = userId;
}

/** pino's `mixin`: the user id of the request a line belongs to, if one is signed in. */
export function logMixin(_merge: object, _level: number, logger: unknown): Record<string, unknown> {
  const userId = (logger as Tagged | undefined)?.[USER_ID];
  return userId === undefined ? {} : { userId };
}
