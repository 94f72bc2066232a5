import type { FastifyReply } from 'fastify';

/**
 * For caches of whole answers: the JSON of `payload` as the route's response schema writes it (so
 * a cached answer holds exactly the fields an uncached one would), encoded once, and the sending
 * of such bytes as they are (a string would be encoded again on every send).
 */
export function serializeForRoute(reply: FastifyReply, payload: unknown): Buffer {
  const text: unknown = reply.serialize(payload);
  if (typeof text !== 'string') throw new Error('The route serializer did not write text.');
  return Buffer.from(text);
}

export function sendJsonBytes(reply: FastifyReply, json: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
