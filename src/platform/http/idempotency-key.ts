import type { IncomingHttpHeaders } from 'node:http';
import { Type } from 'typebox';
import { ValidationError } from '../errors.ts';

/**
 * The `Idempotency-Key` request header (IETF draft-ietf-httpapi-idempotency-key-header), read in
 * one place for every route that takes it: 1 to 100 printable ASCII characters without spaces
 * (0x21–0x7E). A route's key is stored or written into a ledger key (at most 200 characters with
 * its prefix), so the limit is ours, not the draft's.
 *
 * A malformed key is a 422 on `idempotency_key` that does nothing: never ignored or replaced by a
 * random one, since the client's retry would then not be recognised and would move money again.
 * An absent key is the route's own business (docs: each route says what it does without one).
 */
const FORM = /^[\x21-\x7e]{1,100}$/;

export const IDEMPOTENCY_KEY_INVALID = 'The Idempotency-Key header must be 1 to 100 printable characters without spaces.';

/** The header as a route declares it, for the API document. */
export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description: 'Makes a retry answer the first outcome: 1 to 100 printable ASCII characters without spaces; anything else is a 422.',
    }),
  ),
});

/** The key the client sent, or undefined when it sent none; a 422 when it is not of the accepted form. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const sent = headers['idempotency-key'];
  if (sent === undefined) return undefined;
  // Node joins a header sent twice with ", ": the space makes two keys malformed, as they are.
  if (typeof sent !== 'string' || !FORM.test(sent)) throw ValidationError.field('idempotency_key', IDEMPOTENCY_KEY_INVALID);
  return sent;
}
