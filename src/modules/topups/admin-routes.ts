import { Type } from 'typebox';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { idExists } from '../../platform/db/exists.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { equals, IdFilter } from '../../platform/pagination/list.ts';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import { presentTopup, statusFilter, TopupRecord } from './present.ts';
import { TOPUP_STATUSES, topupFields, type TopupRow } from './repository.ts';
import { topups } from './tables.ts';
import type { TopupService } from './service.ts';

const tags = ['Admin: top-ups'];
const Params = Type.Object({ topup: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });
const PAYER_CPF = Type.String({
  maxLength: 20,
  description:
    'REGULATION=br: the CPF of whoever paid (as the operator saw it on the bank statement), which must be the player’s verified CPF; 422 without it or with another. Ignored otherwise.',
});
const StatusBody = Type.Object({
  status: Type.Integer({
    minimum: 0,
    maximum: TOPUP_STATUSES.code.returned,
    'x-message': 'The selected status is invalid.',
    description: '1 paid (credits), 2 cancelled.',
  }),
  payer_cpf: Type.Optional(PAYER_CPF),
});
const ConfirmBody = Type.Object({ payer_cpf: Type.Optional(PAYER_CPF) });
const Wrapped = Type.Object({ data: TopupRecord });

/** /api/admin/topups: list and detail by the admin convention, status changes through the one paid path. */
export function registerAdminTopupRoutes(app: App, ctx: AppContext, service: TopupService): void {
  const present = (row: TopupRow) => presentTopup(row, ctx.config.appUrl);

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/topups',
      param: 'topup',
      permission: 'topups',
      tag: 'Admin: top-ups',
      table: topups,
      select: topupFields,
      record: TopupRecord,
      actions: ['list', 'show'],
      filters: {
        user_id: equals(topups.userId, IdFilter),
        payment_method_id: equals(topups.paymentMethodId, IdFilter),
        status: statusFilter,
        gateway_payment_id: equals(topups.gatewayPaymentId, Type.String({ maxLength: 100 })),
      },
      present,
    }),
  );

  app.put(
    '/api/admin/topups/:topup',
    {
      config: { permission: 'topups.manage', pathRecord: { param: 'topup', exists: idExists(topups) } },
      schema: {
        tags,
        summary: 'Change the status: pending → paid (credits once, as a gateway payment would) or pending → cancelled',
        params: Params,
        body: StatusBody,
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({
      data: present(
        await service.setStatusByAdmin(operationEntry(request), request.params.topup, request.body.status, request.body.payer_cpf),
      ),
    }),
  );

  app.post(
    '/api/admin/topups/:topup/confirm',
    {
      config: { permission: 'topups.manage' },
      schema: {
        tags,
        summary: 'Confirm a pending top-up by hand (under REGULATION=br with the payer’s CPF, the player’s); 409 when it is not pending',
        params: Params,
        body: ConfirmBody,
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({
      data: present(await service.confirmByAdmin(operationEntry(request), request.params.topup, request.body.payer_cpf)),
    }),
  );
}
