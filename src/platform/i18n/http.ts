import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldErrors } from '../errors.ts';
import { LANGUAGE_TAGS, negotiateLocale, type Locale } from './locale.ts';
import { summarizeIn, translate, translateErrors } from './translate.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The language this request is answered in: APP_LOCALE, or Accept-Language's pick under APP_LOCALE_NEGOTIATE=on. */
    locale: Locale;
  }
  interface FastifyInstance {
    /** APP_LOCALE, for answers written before there is a request (a malformed one). */
    appLocale: Locale;
  }
}

/**
 * Every request knows its locale from the start. Without negotiation it is APP_LOCALE, the
 * request decorator's default, so nothing runs per request; with it, one scan of
 * Accept-Language in a `done`-style hook (docs/benchmarks.md), and `Vary: Accept-Language` on the
 * answer so a cache keeps the languages apart.
 */
export function registerLocale(app: FastifyInstance, locale: Locale, negotiate: boolean): void {
  app.decorate('appLocale', locale);
  app.decorateRequest('locale', locale);
  if (!negotiate) return;
  // Browsers send the same few headers again and again: each is scanned once (a bounded memo).
  const picked = new Map<string, Locale>();
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers['accept-language'];
    if (header === undefined) request.locale = locale;
    else {
      let found = picked.get(header);
      if (found === undefined) {
        found = negotiateLocale(header, locale);
        if (picked.size < 256) picked.set(header, found);
      }
      request.locale = found;
    }
    const vary = reply.getHeader('vary');
    reply.header('vary', vary === undefined ? 'Accept-Language' : `${String(vary)}, Accept-Language`);
    done();
  });
}

/** `Content-Language` of an answer whose body carries text for a person (docs/i18n.md). */
export function saysLanguage(reply: FastifyReply, locale: Locale): FastifyReply {
  return reply.header('content-language', LANGUAGE_TAGS[locale]);
}

/** A `{message}` / `{message, errors}` body in `locale`: the English body itself when it is English. */
export function localizedBody(body: unknown, locale: Locale): unknown {
  if (locale === 'en' || body === null || typeof body !== 'object') return body;
  const { message, errors, ...rest } = body as { message?: unknown; errors?: FieldErrors };
  if (errors !== undefined) {
    const translated = translateErrors(errors, locale);
    return { message: summarizeIn(translated, locale), errors: translated, ...rest };
  }
  return typeof message === 'string' ? { message: translate(message, locale), ...rest } : body;
}

/** A success answer's `{message}` in the request's language, saying which. */
export function localizedMessage(request: FastifyRequest, reply: FastifyReply, message: string): { message: string } {
  saysLanguage(reply, request.locale);
  return { message: translate(message, request.locale) };
}
