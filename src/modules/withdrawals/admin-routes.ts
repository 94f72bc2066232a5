import { Type } from 'typebox';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { idExists } from '../../platform/db/exists.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { equals, IdFilter, MAX_ID } from '../../platform/pagination/list.ts';
import { AccountType, AdminWithdrawalRecord, presentAdminWithdrawal, StatusFilter } from './present.ts';
import { adminWithdrawalFields } from './repository.ts';
import type { WithdrawalService } from './service.ts';
import { withdrawals } from './tables.ts';

const tags = ['Admin: withdrawals'];
const Params = Type.Object({ withdrawal: Type.Integer({ minimum: 1, maximum: MAX_ID }) });
const ReasonBody = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 255, description: 'Shown to the player.' }) });
const Wrapped = Type.Object({ data: AdminWithdrawalRecord });

/** /api/admin/withdrawals (docs/api.md section 8): the list by the admin convention and the four transitions. */
export function registerAdminWithdrawalRoutes(app: App, ctx: AppContext, service: WithdrawalService): void {
  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/withdrawals',
      param: 'withdrawal',
      permission: 'withdrawals',
      tag: 'Admin: withdrawals',
      table: withdrawals,
      select: adminWithdrawalFields,
      record: AdminWithdrawalRecord,
      actions: ['list', 'show'],
      filters: {
        status: equals(withdrawals.status, StatusFilter),
        user_id: equals(withdrawals.userId, IdFilter),
        account_type: equals(withdrawals.accountType, AccountType),
      },
      present: presentAdminWithdrawal,
    }),
  );

  // The withdrawal in the path is looked up before the body is validated (docs/api.md section 3).
  const config = { permission: 'withdrawals.manage', pathRecord: { param: 'withdrawal', exists: idExists(withdrawals) } };
  for (const [action, summary] of [
    ['approve', 'Approve a pending withdrawal (0 → 1) and send its payout to the gateway'],
    ['complete', 'Mark an approved withdrawal paid (1 → 2)'],
  ] as const) {
    app.post(
      `/api/admin/withdrawals/:withdrawal/${action}`,
      {
        config,
        schema: { tags, summary: `${summary}; 409 from any other status`, params: Params, response: { 200: Wrapped, ...errorResponses } },
      },
      async (request) => {
        const entry = operationEntry(request);
        const id = request.params.withdrawal;
        const row = action === 'approve' ? await service.approve(entry, id, request.log) : await service.review(entry, id, action, null);
        return { data: presentAdminWithdrawal(row) };
      },
    );
  }

  for (const [action, summary] of [
    ['reject', 'Reject a pending or approved withdrawal (→ 3): the amount returns to the balance'],
    ['fail', 'Mark an approved withdrawal failed (1 → 4): the amount returns to the balance'],
  ] as const) {
    app.post(
      `/api/admin/withdrawals/:withdrawal/${action}`,
      {
        config,
        schema: {
          tags,
          summary: `${summary}; 409 from any other status`,
          params: Params,
          body: ReasonBody,
          response: { 200: Wrapped, ...errorResponses },
        },
      },
      async (request) => {
        const row = await service.review(operationEntry(request), request.params.withdrawal, action, request.body.reason);
        return { data: presentAdminWithdrawal(row) };
      },
    );
  }
}
