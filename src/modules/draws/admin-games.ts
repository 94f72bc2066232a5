import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { defineResource, registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { App } from '../../platform/http/app.ts';
import { codeSchema, describeCodes, slugSchema, SortField } from '../../platform/http/fields.ts';
import { timestamps } from '../../platform/http/record.ts';
import { equals } from '../../platform/pagination/list.ts';
import { GAME_STATUS, games } from '../games/tables.ts';
import type { Regulation } from '../../config.ts';
import { columnPresenter } from '../../platform/http/record.ts';
import type { RowOf } from '../../platform/pagination/list.ts';
import { rtpApplies } from '../../platform/rtp.ts';
import { checkGameSettings, derivedRtp, RTP_DESCRIPTION, rtpRefusals } from './settings.ts';

const Status = codeSchema(GAME_STATUS);
const TYPE = '^[a-z0-9]+(-[a-z0-9]+)*$';

const GameBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  code: slugSchema(64),
  type: Type.String({
    maxLength: 64,
    pattern: TYPE,
    'x-message': 'The :attribute field must be lower-case letters, digits and single hyphens.',
    description: 'The draw game type: `dice3` or `double` (docs/draws.md).',
  }),
  status: Type.Optional(codeSchema(GAME_STATUS, { description: 'Created enabled unless given' })),
  sort: Type.Optional(SortField),
  settings: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'The type’s settings (interval_s, close_before_s, min_bet, max_bet, odds); absent ones take their defaults.',
    }),
  ),
});

/** An in-house game as operators read it (docs/api.md section 5). */
const AdminGameRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  type: Type.String({ description: 'What kind of game it is, e.g. `dice3`, `double`, `slot`.' }),
  status: Type.Integer({ description: `${describeCodes(GAME_STATUS)}.` }),
  sort: Type.Integer(),
  settings: Type.Record(Type.String(), Type.Unknown(), { description: 'Settings of its type.' }),
  rtp: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: RTP_DESCRIPTION })),
  ...timestamps,
});

const GameColumns = Type.Omit(AdminGameRecord, ['rtp']);
const gameColumns = getTableColumns(games);

/** The columns as they are, and under REGULATION=br the RTP its odds give (`none` keeps the seed's record exactly). */
function adminGamePresenter(regulation: Regulation) {
  const columns = columnPresenter(GameColumns, gameColumns);
  if (!rtpApplies(regulation)) return columns;
  return (row: RowOf<typeof gameColumns>) => ({ ...columns(row), rtp: derivedRtp(row.type, row.settings) });
}

/**
 * CRUD /api/admin/games: the in-house games, which are draw games. They live with the draws
 * they configure: a game's type must be a draw game type and its settings are checked and
 * stored in full for that type (docs/draws.md). A change of either is checked against the
 * other as the record will be.
 */
const gamesResource = (regulation: Regulation) =>
  defineResource({
    path: '/api/admin/games',
    param: 'game',
    permission: 'games',
    tag: 'Admin: games',
    table: games,
    select: gameColumns,
    record: AdminGameRecord,
    present: adminGamePresenter(regulation),
    createBody: GameBody,
    sort: games.sort,
    filters: {
      status: equals(games.status, Status),
      type: equals(games.type, Type.String({ maxLength: 64 })),
    },
    search: [games.name, games.code],
    unique: [{ field: 'code', column: games.code }],
    // A bet keeps its draw, which keeps the game (migration 20261201090100).
    inUse: { record: 'game', keptBy: { draws: 'has draws' }, disable: true },
    values: async (body, w) => {
      const typeCode = body.type ?? w.existing?.type;
      let settings: Record<string, unknown> | undefined;
      const changed = body.type !== undefined || body.settings !== undefined;
      const status = body.status ?? w.existing?.status ?? GAME_STATUS.enabled;
      if (changed || (rtpApplies(regulation) && status === GAME_STATUS.enabled)) {
        // The game as it will be; under REGULATION=br an enabled one returns at least 85 % on every selection.
        const check = checkGameSettings(typeCode ?? '', body.settings ?? w.existing?.settings);
        if (!check.ok) throw new ValidationError(check.errors);
        if (rtpApplies(regulation) && status === GAME_STATUS.enabled) {
          const refusals = rtpRefusals(check.type, check.settings);
          if (Object.keys(refusals).length > 0) throw new ValidationError(refusals);
        }
        if (changed) settings = check.json;
      }
      return { name: body.name, code: body.code, type: body.type, status: body.status, sort: body.sort, settings };
    },
  });

export function registerGameAdminRoutes(app: App, ctx: AppContext): void {
  registerResource(app, ctx, gamesResource(ctx.config.regulation));
}
