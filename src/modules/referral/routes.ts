import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { toUnits } from '../../platform/money.ts';
import { referralSignupHook, type ReferralService } from './service.ts';

const ReferralRecord = Type.Object({
  link: Type.String({ description: '`{FRONTEND_URL}/register?ref={id}`' }),
  referred_users_count: Type.Integer(),
  referred_paid_users_count: Type.Integer({ description: 'Referred users with at least one paid top-up.' }),
  referred_users_paid_total: Type.Number({ description: 'Sum of the paid top-ups of referred users.' }),
});

/** GET /api/referral, and the registration hook that pays the sign-up reward. */
export function registerReferralRoutes(app: App, ctx: AppContext, service: ReferralService): void {
  ctx.registrationHooks.push(referralSignupHook(ctx.config.defaultCurrency, ctx.money, ctx.config.regulation));

  app.get(
    '/api/referral',
    {
      config: { auth: true },
      schema: {
        tags: ['Referral'],
        summary: 'Referral link and statistics',
        response: { 200: Type.Object({ data: ReferralRecord }), ...errorResponses },
      },
    },
    async (request) => {
      const user = currentUser(request);
      const summary = await service.summary(user.id);
      return {
        data: {
          link: `${ctx.config.frontendUrl}/register?ref=${user.id}`,
          referred_users_count: summary.referredUsers,
          referred_paid_users_count: summary.referredPaidUsers,
          referred_users_paid_total: toUnits(summary.referredPaidTotal),
        },
      };
    },
  );
}
