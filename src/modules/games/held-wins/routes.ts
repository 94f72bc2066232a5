import { Type } from 'typebox';
import { operationEntry } from '../../../platform/admin/operation-log.ts';
import { defineResource, registerResource } from '../../../platform/admin/resource.ts';
import type { AppContext } from '../../../platform/context.ts';
import { idExists } from '../../../platform/db/exists.ts';
import type { App } from '../../../platform/http/app.ts';
import { errorResponses } from '../../../platform/http/schemas.ts';
import { equals, IdFilter, MAX_ID } from '../../../platform/pagination/list.ts';
import { providerWinHolds } from '../seamless-wallet/tables.ts';
import { HeldWinRecord, HoldStatusFilter, presentHeldWin } from './present.ts';
import type { HeldWinService } from './service.ts';

const tags = ['Admin: held wins'];
const Params = Type.Object({ held_win: Type.Integer({ minimum: 1, maximum: MAX_ID }) });
const Reason = Type.String({ minLength: 1, maxLength: 255, description: 'Why; kept with the decision.' });
const Wrapped = Type.Object({ data: HeldWinRecord });

/**
 * /api/admin/held-wins (docs/games.md, "Held wins"): the wins over the operator's ceiling, read
 * with `provider-bets.view`, released or refused with `provider-bets.manage`, each decision in
 * the operation log.
 */
export function registerHeldWinRoutes(app: App, ctx: AppContext, service: HeldWinService): void {
  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/held-wins',
      param: 'held_win',
      permission: 'provider-bets',
      tag: tags[0]!,
      singular: 'held win',
      table: providerWinHolds,
      record: HeldWinRecord,
      actions: ['list', 'show'],
      filters: {
        status: equals(providerWinHolds.status, HoldStatusFilter),
        provider_id: equals(providerWinHolds.providerId, IdFilter),
        user_id: equals(providerWinHolds.userId, IdFilter),
      },
    }),
  );

  // The held win in the path is looked up before the body is validated (docs/api.md section 3).
  const config = { permission: 'provider-bets.manage', pathRecord: { param: 'held_win', exists: idExists(providerWinHolds) } };
  app.post(
    '/api/admin/held-wins/:held_win/release',
    {
      config,
      schema: {
        tags,
        summary:
          'Release a held win: credit it to the player, once (409 when it was released or refused already, or its bet refunded since)',
        params: Params,
        body: Type.Object({ reason: Type.Optional(Reason) }),
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({
      data: presentHeldWin(await service.release(operationEntry(request), request.params.held_win, request.body.reason ?? null)),
    }),
  );
  app.post(
    '/api/admin/held-wins/:held_win/refuse',
    {
      config,
      schema: {
        tags,
        summary: 'Refuse a held win: nothing is credited (409 when it was released or refused already)',
        params: Params,
        body: Type.Object({ reason: Reason }),
        response: { 200: Wrapped, ...errorResponses },
      },
    },
    async (request) => ({
      data: presentHeldWin(await service.refuse(operationEntry(request), request.params.held_win, request.body.reason)),
    }),
  );
}
