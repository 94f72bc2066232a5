import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { equals } from '../../platform/pagination/list.ts';
import { GameRecord, gameFields, slugSchema, SortField } from './catalogue-records.ts';
import { games } from './tables.ts';

const Status = Type.Integer({ minimum: 0, maximum: 2 });
const TYPE = '^[a-z0-9]+(-[a-z0-9]+)*$';

const GameBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  code: slugSchema(64),
  type: Type.String({
    maxLength: 64,
    pattern: TYPE,
    'x-message': 'The :attribute field must be lower-case letters, digits and single hyphens.',
    description: 'What kind of game it is, e.g. `dice3`, `double`, `slot`.',
  }),
  status: Type.Optional({ ...Status, description: '0 disabled, 1 enabled (default), 2 maintenance.' }),
  sort: Type.Optional(SortField),
  settings: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON object; default {}.' })),
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
  values: async (body) => ({
    name: body.name,
    code: body.code,
    type: body.type,
    status: body.status,
    sort: body.sort,
    settings: body.settings,
  }),
});
