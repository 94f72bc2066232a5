import type { FastifyRequest } from 'fastify';
import type { App } from './app.ts';

/** The body of a request exactly as received. */
export type RawBodyOf = (request: FastifyRequest) => string;

/**
 * A plugin scope for signed machine callbacks (docs/api.md section 9): JSON bodies are kept as the
 * raw string next to the parsed copy, because the signature covers the exact bytes, which a
 * parse/serialize round trip would not preserve. The parsed copy is normalised like any other.
 * Malformed JSON is a 400 before the handler, unless `keepMalformed`: then the handler gets the
 * raw text (and an empty parsed copy), for protocols that answer a body they cannot read in their
 * own words once its signature is checked (Hub88, docs/api.md section 15).
 */
export function registerRawJsonScope(
  app: App,
  register: (scope: App, rawBodyOf: RawBodyOf) => void,
  options: { keepMalformed?: boolean } = {},
): void {
  const rawBodies = new WeakMap<object, string>();
  const rawBodyOf: RawBodyOf = (request) => rawBodies.get(request) ?? '';
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      rawBodies.set(request, body as string);
      try {
        const parsed: unknown = JSON.parse(body as string);
        done(null, parsed !== null && typeof parsed === 'object' ? parsed : {});
      } catch (error) {
        if (options.keepMalformed === true) {
          done(null, {});
          return;
        }
        (error as SyntaxError & { statusCode?: number }).statusCode = 400;
        done(error as SyntaxError, undefined);
      }
    });
    register(scope, rawBodyOf);
  });
}
