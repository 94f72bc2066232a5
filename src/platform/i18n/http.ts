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
  app.addHook('onRequest', (request, reply, done) => {
    request.locale = negotiateLocale(request.headers['accept-language'], locale);
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
