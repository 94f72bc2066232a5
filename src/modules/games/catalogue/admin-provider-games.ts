import { Type } from 'typebox';
import { defineResource } from '../../../platform/admin/resource.ts';
import { mustExist } from '../../../platform/admin/rules.ts';
import type { AppContext } from '../../../platform/context.ts';
import { ValidationError } from '../../../platform/errors.ts';
import { codeSchema, slugSchema, SortField } from '../../../platform/http/fields.ts';
import { equals, IdFilter, MAX_ID } from '../../../platform/pagination/list.ts';
import { rateProblem } from '../../../platform/money.ts';
import { isUploadPath, type Storage } from '../../../platform/storage/storage.ts';
import { CATALOGUE_TOPIC } from './catalogue.ts';
import { Flag, ProviderGameRecord, providerGamePresenter, providerGameFields } from './records.ts';
import { providerRtpRefusal, rtpApplies } from '../../../platform/rtp.ts';
import { CATALOGUE_STATUS, providerGames, providers } from '../tables.ts';

const ProviderGameBody = Type.Object({
  provider_id: Type.Integer({ minimum: 1, maximum: MAX_ID }),
  name: Type.String({ minLength: 1, maxLength: 255 }),
  slug: slugSchema(255),
  code: Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Integer({ minimum: 0, maximum: MAX_ID })], {
    'x-message': 'The :attribute field must be a string or a whole number of at most 255 characters.',
    description: "The game's code at the provider; a number is stored as its digits.",
  }),
  category_id: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'Default 0 (none).' })),
  free: Type.Optional({ ...Flag, description: '1 playable without money; default 0.' }),
  thumbnail: Type.Optional(
    Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
      'x-message': 'The :attribute field must be a path returned by the upload endpoint.',
      description: 'A `path` returned by POST /api/admin/upload, or null.',
    }),
  ),
  sort: Type.Optional(SortField),
  popular: Type.Optional({ ...Flag, description: 'Default 0.' }),
  status: Type.Optional(codeSchema(CATALOGUE_STATUS, { description: 'Created enabled unless given' })),
  rtp: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      'x-message': 'The :attribute field must be a number.',
      description:
        'The return to player in percent (0–100, 2 decimals) from its certificate, or null. Under REGULATION=br an enabled game needs at least 85.',
    }),
  ),
});

const THUMBNAIL_INVALID = 'The selected thumbnail is invalid.';

/** A percent with at most two decimals as basis points, or null; 422 on `rtp` otherwise. */
function parseRtp(value: number | null): number | null {
  if (value === null) return null;
  const outcome = rateProblem('rtp', value);
  if (typeof outcome === 'string') throw ValidationError.field('rtp', outcome);
  return Number(outcome.bp);
}

/** CRUD /api/admin/provider-games (docs/api.md sections 5 and 8). */
export function providerGamesResource(ctx: AppContext, storage: Storage) {
  return defineResource({
    path: '/api/admin/provider-games',
    param: 'id',
    permission: 'provider-games',
    tag: 'Admin: provider games',
    table: providerGames,
    select: providerGameFields,
    record: ProviderGameRecord,
    present: providerGamePresenter(ctx.config.appUrl, ctx.config.regulation),
    createBody: ProviderGameBody,
    sort: providerGames.sort,
    filters: {
      provider_id: equals(providerGames.providerId, IdFilter),
      status: equals(providerGames.status, codeSchema(CATALOGUE_STATUS)),
      popular: equals(providerGames.popular, Flag),
      category_id: equals(providerGames.categoryId, Type.Integer({ minimum: 0, maximum: MAX_ID })),
    },
    search: [providerGames.name, providerGames.slug, providerGames.code],
    unique: [{ field: 'slug', column: providerGames.slug }],
    // Its rounds (provider_bets) have no foreign key; the newest money session of every game that
    // was played is kept from housekeeping for them (20261126090200), so the launches keep it.
    inUse: { record: 'game', keptBy: { game_sessions: 'has been launched' }, disable: true },
    // Before the transaction: with an object store, looking a file up is a network call.
    prepare: async (body) => {
      const thumbnail = body.thumbnail;
      if (typeof thumbnail === 'string' && !(isUploadPath(thumbnail) && (await storage.exists(thumbnail)))) {
        throw ValidationError.field('thumbnail', THUMBNAIL_INVALID);
      }
      return body;
    },
    values: async (body, { tx, existing }) => {
      if (body.provider_id !== undefined) await mustExist(tx, providers, body.provider_id, 'provider_id');
      const rtpBp = body.rtp === undefined ? undefined : parseRtp(body.rtp);
      if (rtpApplies(ctx.config.regulation)) {
        // The game as it will be: an enabled one needs its certificate's RTP, at least 85.
        const status = body.status ?? existing?.status ?? CATALOGUE_STATUS.enabled;
        const refusal = providerRtpRefusal(rtpBp === undefined ? (existing?.rtpBp ?? null) : rtpBp);
        if (status === CATALOGUE_STATUS.enabled && refusal !== undefined) throw ValidationError.field('rtp', refusal);
      }
      return {
        providerId: body.provider_id,
        name: body.name,
        slug: body.slug,
        code: body.code === undefined ? undefined : String(body.code),
        categoryId: body.category_id,
        free: body.free,
        thumbnail: body.thumbnail,
        sort: body.sort,
        popular: body.popular,
        status: body.status,
        rtpBp,
      };
    },
    afterCommit: async () => ctx.invalidation.publish(CATALOGUE_TOPIC),
  });
}
