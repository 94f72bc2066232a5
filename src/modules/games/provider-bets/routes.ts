import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource, registerResource } from '../../../platform/admin/resource.ts';
import type { AppContext } from '../../../platform/context.ts';
import { idExists } from '../../../platform/db/exists.ts';
import { NotFoundError } from '../../../platform/errors.ts';
import type { App } from '../../../platform/http/app.ts';
import { columnPresenter } from '../../../platform/http/record.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { registerCustomerList } from '../../../platform/pagination/customer-list.ts';
import { equals, IdFilter, MAX_ID } from '../../../platform/pagination/list.ts';
import { providerBets } from '../seamless-wallet/tables.ts';
import { AdminProviderBetRecord, BetStatusFilter, presentProviderTransaction, ProviderBetRecord } from './present.ts';
import type { ProviderBetService } from './service.ts';

const tags = ['Provider bets'];

/**
 * The rounds the seamless wallet records: the player's own (`GET /api/provider-bets`) and the
 * operators' (`/api/admin/provider-bets`, read-only; the detail carries the calls' bodies, stored
 * with their credentials redacted by the wallet functions).
 */
export function registerProviderBetRoutes(app: App, ctx: AppContext, service: ProviderBetService): void {
  registerCustomerList(app, ctx, {
    path: '/api/provider-bets',
    tags,
    summary: 'The signed-in user’s game rounds at providers, newest first',
    source: {
      table: providerBets,
      select: getTableColumns(providerBets),
      filters: { status: equals(providerBets.status, BetStatusFilter), provider_id: equals(providerBets.providerId, IdFilter) },
    },
    scope: { owner: providerBets.userId },
    record: ProviderBetRecord,
  });

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/provider-bets',
      param: 'provider_bet',
      permission: 'provider-bets',
      tag: 'Admin: provider bets',
      table: providerBets,
      record: ProviderBetRecord,
      actions: ['list'],
      filters: {
        user_id: equals(providerBets.userId, IdFilter),
        provider_id: equals(providerBets.providerId, IdFilter),
        status: equals(providerBets.status, BetStatusFilter),
      },
    }),
  );

  const present = columnPresenter(ProviderBetRecord, getTableColumns(providerBets));
  app.get(
    '/api/admin/provider-bets/:provider_bet',
    {
      config: { permission: 'provider-bets.view', pathRecord: { param: 'provider_bet', exists: idExists(providerBets) } },
      schema: {
        tags: ['Admin: provider bets'],
        summary: 'One round with its money calls and their signed payloads (credentials redacted)',
        params: Type.Object({ provider_bet: Type.Integer({ minimum: 1, maximum: MAX_ID }) }),
        response: { 200: Type.Object({ data: AdminProviderBetRecord }), ...errorResponses },
      },
    },
    async (request) => {
      const found = await service.roundWithCalls(request.params.provider_bet);
      if (found === undefined) throw new NotFoundError();
      return { data: { ...present(found.round), transactions: found.calls.map(presentProviderTransaction) } };
    },
  );
}
