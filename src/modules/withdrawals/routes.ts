import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import { IdempotencyKeyHeaders, idempotencyKeyOf } from '../../platform/http/idempotency-key.ts';
import type { App } from '../../platform/http/app.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { registerCustomerList } from '../../platform/pagination/customer-list.ts';
import { equals } from '../../platform/pagination/list.ts';
import { registerAdminWithdrawalRoutes } from './admin-routes.ts';
import { AccountType, presentWithdrawal, StatusFilter, WithdrawalRecord } from './present.ts';
import { withdrawalFields } from './repository.ts';
import type { WithdrawalService } from './service.ts';
import { withdrawals } from './tables.ts';
import { registerPayoutWebhookRoutes } from './webhook-routes.ts';

const tags = ['Withdrawals'];

const CreateBody = Type.Object({
  payee_name: Type.String({ minLength: 1, maxLength: 255 }),
  account_type: AccountType,
  payee_account: Type.String({
    maxLength: 100,
    description: 'A PIX key of `account_type`: CPF or CNPJ (punctuation allowed), e-mail, Brazilian mobile number, or random key (EVP).',
  }),
  amount: Type.Union([Type.Number(), Type.String()], {
    description: 'Currency units, at most 2 decimals; held from the balance at once. The fee is deducted from what is paid out.',
  }),
});

/** Customer withdrawals (docs/api.md section 7), the payout notifications and the admin review. */
export function registerWithdrawalRoutes(app: App, ctx: AppContext, service: WithdrawalService): void {
  app.post(
    '/api/withdrawals',
    {
      config: { auth: true, verified: true },
      schema: {
        tags,
        summary:
          'Ask for a withdrawal to a PIX key: the amount is held at once; an Idempotency-Key header makes a retry answer the first result',
        headers: IdempotencyKeyHeaders,
        body: CreateBody,
        response: { 201: Type.Object({ data: WithdrawalRecord }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { withdrawal } = await service.request({
        userId: currentUser(request).id,
        payeeName: body.payee_name,
        accountType: body.account_type,
        payeeAccount: body.payee_account,
        amount: body.amount,
        idempotencyKey: idempotencyKeyOf(request.headers),
      });
      return reply.code(201).send({ data: presentWithdrawal(withdrawal) });
    },
  );

  registerCustomerList(app, ctx, {
    path: '/api/withdrawals',
    tags,
    summary: 'The signed-in user’s withdrawals, newest first',
    source: { table: withdrawals, select: withdrawalFields, filters: { status: equals(withdrawals.status, StatusFilter) } },
    scope: { owner: withdrawals.userId },
    record: WithdrawalRecord,
    present: presentWithdrawal,
  });

  registerPayoutWebhookRoutes(app, service);
  registerAdminWithdrawalRoutes(app, ctx, service);
}
