import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';

/**
 * The app as route registrars see it: with the TypeBox type provider, a route's schema gives its
 * handler the types of `request.body`, `params` and `query`, so handlers never cast them.
 */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;
