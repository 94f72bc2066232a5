import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';

/** Response bodies shared by every route (docs/api.md section 3). */
export const MessageBody = Type.Object({ message: Type.String() });
export const ValidationBody = Type.Object({
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Array(Type.String())),
});
/** Fortify's "empty JSON string": the two characters `""`. */
export const EmptyString = Type.Literal('', { description: 'The JSON document `""`.' });
export const NoContent = Type.Null({ description: 'No body.' });

export const errorResponses = {
  400: MessageBody,
  401: MessageBody,
  403: MessageBody,
  404: MessageBody,
  409: MessageBody,
  413: MessageBody,
  419: MessageBody,
  422: ValidationBody,
  423: MessageBody,
  429: Type.Union([ValidationBody, MessageBody]),
  500: MessageBody,
} as const;

export function sendEmptyString(reply: FastifyReply, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send('""');
}

export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/** Laravel's boolean input: true, 1, "1", "true", "on" and "yes" are true. */
export function truthy(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === 'string' && ['1', 'true', 'on', 'yes'].includes(value.toLowerCase()));
}
