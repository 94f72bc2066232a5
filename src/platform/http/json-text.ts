import { constants, brotliCompressSync, gzipSync } from 'node:zlib';
import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A cached answer's JSON, as the route's response schema wrote it (so a cached answer holds
 * exactly the fields an uncached one would), in bytes, and compressed once for the clients that
 * accept it: a browser always does, and a page of 15 games goes from 6.4 KB to 0.8 KB (brotli).
 */
export interface CachedJson {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** Brotli's middle quality: most of its gain over gzip, at a cost paid once per cache fill. */
const BROTLI_QUALITY = 5;

export function serializeForRoute(reply: FastifyReply, payload: unknown): CachedJson {
  const text: unknown = reply.serialize(payload);
  if (typeof text !== 'string') throw new Error('The route serializer did not write text.');
  const identity = Buffer.from(text);
  return {
    identity,
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }),
    gzip: gzipSync(identity),
  };
}

const encodings = new Negotiator<'br' | 'gzip'>({ supportedValues: ['br', 'gzip'] });

/**
 * Sends cached JSON in the encoding the request's Accept-Encoding prefers (RFC 9110: none named,
 * or all refused, is the identity), saying that the answer varies with that header.
 */
export function sendCachedJson(request: FastifyRequest, reply: FastifyReply, json: CachedJson): FastifyReply {
  const accepted = request.headers['accept-encoding'];
  const encoding = typeof accepted === 'string' ? encodings.negotiate(accepted) : null;
  const vary = reply.getHeader('vary');
  reply.header('vary', typeof vary === 'string' && vary !== '' ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  reply.type('application/json; charset=utf-8');
  if (encoding === null) return reply.send(json.identity);
  return reply.header('content-encoding', encoding).send(json[encoding]);
}

/**
 * A cached answer's route handler: `kept` is sent at once, without a promise, when there is one;
 * otherwise what `load` answers is. Returns the promise to hand Fastify only in the second case.
 */
export function sendKeptOr(
  request: FastifyRequest,
  reply: FastifyReply,
  kept: CachedJson | undefined,
  load: () => Promise<CachedJson>,
): Promise<void> | undefined {
  if (kept !== undefined) {
    sendCachedJson(request, reply, kept);
    return undefined;
  }
  return load().then((json) => {
    sendCachedJson(request, reply, json);
  });
}
