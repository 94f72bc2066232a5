import { sql, type Placeholder } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { Type } from 'typebox';
import { operationEntry } from '../../platform/admin/operation-log.ts';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { idExists } from '../../platform/db/exists.ts';
import type { App } from '../../platform/http/app.ts';
import { errorResponses } from '../../platform/http/schemas.ts';
import { equals, filter, IdFilter, MAX_ID } from '../../platform/pagination/list.ts';
import {
  AdminDrawRecord,
  BetRecord,
  BetStatusFilter,
  DrawStatusFilter,
  presentAdminDraw,
  presentBet,
  presentRefund,
  presentSettlement,
  RefundRecord,
  SettlementRecord,
  SettlementStatusFilter,
} from './present.ts';
import { adminDrawFields, betFields, betStatus, refundFields, settlementFields } from './repository.ts';
import type { DrawService } from './service.ts';
import { drawBets, drawRefunds, draws, drawSettlements } from './tables.ts';

const Period = Type.String({
  pattern: '^[0-9]{8}-[0-9]{4,5}$',
  'x-message': 'The :attribute field must be a period such as 20261125-0001.',
});

/**
 * Filters of a record keyed by a bet's id (settlements, refunds) on the bet's draw, game or user:
 * through the bets' own indexes, so settling writes no index but the key.
 */
function ofBets(id: PgColumn, where: (param: Placeholder) => ReturnType<typeof sql>) {
  return filter(IdFilter, (param) => sql`${id} in (select b.id from draw_bets b where ${where(param)})`);
}

function betFilters(id: PgColumn) {
  return {
    draw_id: ofBets(id, (param) => sql`b.draw_id = ${param}`),
    game_id: ofBets(id, (param) => sql`b.draw_id in (select d.id from draws d where d.game_id = ${param})`),
    user_id: ofBets(id, (param) => sql`b.user_id = ${param}`),
  };
}

/** /api/admin/draws, bets, settlements and refunds (docs/api.md section 8), and the cancel of a draw. */
export function registerAdminDrawRoutes(app: App, ctx: AppContext, service: DrawService): void {
  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/draws',
      param: 'draw',
      permission: 'draws',
      tag: 'Admin: draws',
      table: draws,
      select: adminDrawFields,
      record: AdminDrawRecord,
      actions: ['list', 'show'],
      filters: {
        game_id: equals(draws.gameId, IdFilter),
        status: equals(draws.status, DrawStatusFilter),
        period: equals(draws.period, Period),
        // A draw "has" a user when the user bet on it.
        user_id: filter(
          IdFilter,
          (param) => sql`exists (select 1 from draw_bets b where b.draw_id = ${draws.id} and b.user_id = ${param})`,
        ),
      },
      present: presentAdminDraw,
    }),
  );

  app.post(
    '/api/admin/draws/:draw/cancel',
    {
      // The draw in the path is looked up before the body is validated (docs/api.md section 3).
      config: { permission: 'draws.manage', pathRecord: { param: 'draw', exists: idExists(draws) } },
      schema: {
        tags: ['Admin: draws'],
        summary: 'Cancel a draw not drawn yet (→ 4): its seed is revealed and every bet refunded once; 409 once drawn or cancelled',
        params: Type.Object({ draw: Type.Integer({ minimum: 1, maximum: MAX_ID }) }),
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 255, description: 'Shown to players.' }) }),
        response: { 200: Type.Object({ data: AdminDrawRecord }), ...errorResponses },
      },
    },
    async (request) => ({
      data: presentAdminDraw(await service.cancel(operationEntry(request), request.params.draw, request.body.reason)),
    }),
  );

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/bets',
      param: 'bet',
      permission: 'bets',
      tag: 'Admin: draw bets',
      table: drawBets,
      select: betFields,
      record: BetRecord,
      actions: ['list', 'show'],
      filters: {
        game_id: filter(IdFilter, (param) => sql`${drawBets.drawId} in (select d.id from draws d where d.game_id = ${param})`),
        draw_id: equals(drawBets.drawId, IdFilter),
        user_id: equals(drawBets.userId, IdFilter),
        status: filter(BetStatusFilter, (param) => sql`${betStatus} = ${param}`),
        selection: equals(drawBets.selection, Type.String({ maxLength: 32 })),
      },
      present: presentBet,
    }),
  );

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/settlements',
      param: 'settlement',
      permission: 'settlements',
      tag: 'Admin: draw settlements',
      table: drawSettlements,
      select: settlementFields,
      record: SettlementRecord,
      actions: ['list', 'show'],
      filters: { ...betFilters(drawSettlements.id), status: equals(drawSettlements.status, SettlementStatusFilter) },
      present: presentSettlement,
    }),
  );

  registerResource(
    app,
    ctx,
    defineResource({
      path: '/api/admin/refunds',
      param: 'refund',
      permission: 'refunds',
      tag: 'Admin: draw refunds',
      table: drawRefunds,
      select: refundFields,
      record: RefundRecord,
      actions: ['list', 'show'],
      filters: betFilters(drawRefunds.id),
      present: presentRefund,
    }),
  );
}
