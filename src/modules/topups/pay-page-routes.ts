import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { MessageBody } from '../../platform/http/schemas.ts';
import { saysLanguage } from '../../platform/i18n/http.ts';
import { PAY_PAGE_POLICIES, renderPayPage } from './pay-page.ts';
import { TOPUP_STATUS } from './repository.ts';
import type { TopupService } from './service.ts';

/** GET /pay/:public_id: the payment page a top-up's `payment_url` points to (no session, no CSRF). */
export function registerPayPageRoutes(app: App, ctx: AppContext, service: TopupService): void {
  app.get(
    '/pay/:public_id',
    {
      config: { stateless: true },
      schema: {
        tags: ['Top-ups'],
        summary: 'Payment page of a top-up (HTML with the PIX QR code and copy-and-paste text)',
        params: Type.Object({ public_id: Type.String({ pattern: '^[A-Za-z0-9]{24}$' }) }),
        response: { 200: Type.String({ description: 'text/html' }), 404: MessageBody, 500: MessageBody },
      },
    },
    async (request, reply) => {
      const topup = await service.byPublicId(request.params.public_id);
      const locale = request.locale;
      const until = topup.status === TOPUP_STATUS.pending ? await service.payableUntil(topup) : undefined;
      const html = await renderPayPage(
        topup,
        ctx.config.appName,
        locale,
        until === undefined ? undefined : (until.getTime() - Date.now()) / 1000,
      );
      return saysLanguage(reply, locale)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', PAY_PAGE_POLICIES[locale])
        .header('x-frame-options', 'DENY')
        .send(html);
    },
  );
}
