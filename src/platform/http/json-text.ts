import type { FastifyReply } from 'fastify';

/**
 * For caches of whole answers: the JSON text of `payload` as the route's response schema writes
 * it (so a cached answer holds exactly the fields an uncached one would), and the sending of such
 * text as it is.
 */
export function serializeForRoute(reply: FastifyReply, payload: unknown): string {
  const text: unknown = reply.serialize(payload);
  if (typeof text !== 'string') throw new Error('The route serializer did not write text.');
  return text;
}

export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
