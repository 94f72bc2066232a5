import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { ValidationError } from '../../platform/errors.ts';
import { equals } from '../../platform/pagination/list.ts';
import { checkGameSettings } from './settings.ts';
import { GameRecord, gameFields, slugSchema, SortField } from '../games/catalogue/records.ts';
import { games } from '../games/tables.ts';

const Status = Type.Integer({ minimum: 0, maximum: 2 });
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
  status: Type.Optional({ ...Status, description: '0 disabled, 1 enabled (default), 2 maintenance.' }),
  sort: Type.Optional(SortField),
  settings: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'The type’s settings (interval_s, close_before_s, min_bet, max_bet, odds); absent ones take their defaults.',
    }),
  ),
});

/** CRUD /api/admin/games: the in-house games (contract section 5). */
export const gamesResource = defineResource({
  path: '/api/admin/games',
  param: 'game',
  permission: 'games',
  tag: 'Admin: games',
  table: games,
  select: gameFields,
  record: GameRecord,
  createBody: GameBody,
  sort: games.sort,
  filters: {
    status: equals(games.status, Status),
    type: equals(games.type, Type.String({ maxLength: 64 })),
  },
  search: [games.name, games.code],
  unique: [{ field: 'code', column: games.code }],
  inUse: { record: 'game', keptBy: { draws: 'has draws', draw_bets: 'has bets' }, disable: true },
  // An in-house game is a draw game: its type must be one of the draw game types, and its
  // settings are checked and stored in full for that type (docs/draws.md). A change of either
  // is checked against the other as the record will be.
  values: async (body, w) => {
    const typeCode = body.type ?? w.existing?.type;
    let settings: Record<string, unknown> | undefined;
    if (body.type !== undefined || body.settings !== undefined) {
      const check = checkGameSettings(typeCode ?? '', body.settings ?? w.existing?.settings);
      if (!check.ok) throw new ValidationError(check.errors);
      settings = check.json;
    }
    return { name: body.name, code: body.code, type: body.type, status: body.status, sort: body.sort, settings };
  },
});
