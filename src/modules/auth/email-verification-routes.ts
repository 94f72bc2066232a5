import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { EmptyString, errorResponses, NoContent, sendEmptyString, sendNoContent } from '../../platform/http/schemas.ts';
import { NOTIFICATION_LIMIT, type EmailVerificationService } from './email-verification.ts';

const tags = ['Account'];

/**
 * Laravel's `expectsJson()`: the first type the client accepts is JSON, or an XHR that accepts
 * anything. A browser following the link from the mail asks for HTML and gets the redirect.
 */
function expectsJson(request: FastifyRequest): boolean {
  const first = (request.headers.accept ?? '').split(',')[0]!.split(';')[0]!.trim().toLowerCase();
  if (first.includes('/json') || first.includes('+json')) return true;
  return request.headers['x-requested-with'] === 'XMLHttpRequest' && (first === '' || first === '*/*' || first === '*');
}

/** E-mail verification (docs/api.md section 12), as Fortify's routes under /api. */
export function registerEmailVerificationRoutes(app: App, ctx: AppContext, service: EmailVerificationService): void {
  ctx.registrationHooks.push(service.registrationHook());

  app.post(
    '/api/email/verification-notification',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Send the verification e-mail again',
        description:
          `202 \`""\` once the e-mail with a new signed link (valid 60 minutes) is sent; 204 when the e-mail is verified already. ` +
          `At most ${NOTIFICATION_LIMIT} a minute per user (429 with \`Retry-After\` beyond).`,
        response: { 202: EmptyString, 204: NoContent, ...errorResponses },
      },
    },
    async (request, reply) => {
      const sent = await service.notify(currentUser(request).id, request.locale);
      return sent ? sendEmptyString(reply, 202) : sendNoContent(reply);
    },
  );

  app.get(
    '/api/email/verify/:id/:hash',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'The signed link of the verification e-mail',
        description:
          'Signed in as the user the link names: sets `email_verified_at` (the first time), then redirects (302) to ' +
          '`{FRONTEND_URL}/dashboard?verified=1`, or answers 204 when JSON is asked. A wrong or expired signature is ' +
          '403 "Invalid signature."; another user’s link, or one made for an e-mail the user no longer has, 403.',
        params: Type.Object({
          id: Type.String({ description: 'The user id.' }),
          hash: Type.String({ description: 'SHA-1 (hex) of the lower-cased e-mail.' }),
        }),
        querystring: Type.Object({
          expires: Type.Optional(Type.String({ description: 'Unix time after which the link is refused.' })),
          signature: Type.Optional(Type.String({ description: 'HMAC-SHA256 (hex) of the URL before it, with a key from APP_KEY.' })),
        }),
        response: {
          204: NoContent,
          302: Type.Null({ description: 'Location: `{FRONTEND_URL}/dashboard?verified=1`.' }),
          ...errorResponses,
        },
      },
      // Laravel's order: signed in (the guard, 401) → `signed` (403) → the request's own checks.
      preValidation: async (request) => service.checkSignature(request.url),
    },
    async (request, reply) => {
      await service.verify(currentUser(request).id, request.params);
      if (expectsJson(request)) return sendNoContent(reply);
      return reply.redirect(`${ctx.config.frontendUrl}/dashboard?verified=1`, 302);
    },
  );
}
