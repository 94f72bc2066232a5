import type { FastifyRequest } from 'fastify';
import type { SchemaObject } from 'ajv';
import { ValidationError, type FieldErrors } from '../errors.ts';
import { mergeFieldErrors } from '../validation.ts';

/** The rules of a body that need the database (Laravel's `unique`, `exists`), given the body as sent. */
export type DatabaseRules = (body: Record<string, unknown>) => Promise<FieldErrors>;

/**
 * Route options (spread into a route's) for a body some of whose rules need the database.
 * Laravel's validator runs every rule of every field and reports all failures in one 422, while
 * Fastify answers the schema's failures alone, so a taken e-mail would show only on the next
 * submit. With these options a body that fails its schema is also put to `rules`, and both sets
 * of messages come back together. A body that passes the schema reaches the handler, whose
 * service runs the same rules itself (and keeps the unique constraint as the last word against
 * a race), so they run once either way.
 */
export function withDatabaseRules(schema: SchemaObject, rules: DatabaseRules) {
  return {
    attachValidation: true,
    preHandler: async (request: FastifyRequest): Promise<void> => {
      const failure = request.validationError;
      if (failure === undefined) return;
      if (!(failure instanceof ValidationError)) throw failure;
      const body = request.body;
      const sent = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
      throw new ValidationError(mergeFieldErrors(schema, failure.errors, await rules(sent)));
    },
  };
}
