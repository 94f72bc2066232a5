import { getTableColumns, sql } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { correlated } from '../../../platform/db/columns.ts';
import { describeCodes, SLUG } from '../../../platform/http/fields.ts';
import { columnPresenter, timestamps } from '../../../platform/http/record.ts';
import type { RowOf } from '../../../platform/pagination/list.ts';
import { publicUrl } from '../../../platform/storage/storage.ts';
import type { Regulation } from '../../../config.ts';
import { rtpApplies, rtpUnits } from '../../../platform/rtp.ts';
import { CATALOGUE_STATUS, providerGames, providers } from '../tables.ts';

const SLUG_PATTERN = new RegExp(SLUG);
const ID_PATTERN = /^[1-9][0-9]{0,15}$/;

/**
 * What a path value such as `:provider` or `:game` names (docs/api.md section 4): an all-digit value
 * is an id, anything else a code or slug; undefined when it can be neither, so no query is run.
 */
export function pathKey(value: string): { id: number } | { code: string } | undefined {
  if (ID_PATTERN.test(value)) {
    const id = Number(value);
    return Number.isSafeInteger(id) ? { id } : undefined;
  }
  return value.length <= 255 && SLUG_PATTERN.test(value) ? { code: value } : undefined;
}

/** A 0/1 field such as `popular` or `free`. */
export const Flag = Type.Integer({ minimum: 0, maximum: 1 });
const Status = Type.Integer({ description: `${describeCodes(CATALOGUE_STATUS)}.` });

// Providers ---------------------------------------------------------------------------------

/** A provider as operators read it; the wallet secret itself never leaves (only whether one is set). */
export const providerFields = {
  id: providers.id,
  name: providers.name,
  code: providers.code,
  sort: providers.sort,
  status: providers.status,
  adapter: providers.adapter,
  gamesCount: correlated<number>(sql`(select count(*)::int from ${providerGames} where ${providerGames.providerId} = ${providers.id})`),
  hasWalletSecret: sql<boolean>`(${providers.walletSecret} is not null)`,
  /** As stored (write-only fields sealed): presented without them (admin-providers.ts). */
  adapterConfig: providers.adapterConfig,
  createdAt: providers.createdAt,
  updatedAt: providers.updatedAt,
};

export const AdminProviderRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  sort: Type.Integer(),
  status: Status,
  adapter: Type.String({ description: 'The adapter speaking its protocol; built in: `demo`.' }),
  games_count: Type.Integer({ description: 'Its provider games, enabled or not.' }),
  has_wallet_secret: Type.Boolean({ description: 'Whether a wallet secret is set (the secret itself is write-only).' }),
  adapter_config: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'What its adapter needs besides the secret (docs/api.md section 15), without the write-only fields; null when none.',
  }),
  adapter_secrets: Type.Array(Type.String(), {
    description: 'The write-only fields of `adapter_config` that are set (e.g. `private_key`); their values never leave.',
  }),
  ...timestamps,
});

/** A provider as customers see it (enabled ones only): `games_count` counts its enabled games. */
export const customerProviderFields = {
  id: providers.id,
  name: providers.name,
  code: providers.code,
  sort: providers.sort,
  status: providers.status,
  gamesCount: correlated<number>(sql`(select count(*)::int from ${providerGames}
    where ${providerGames.providerId} = ${providers.id} and ${providerGames.status} = ${CATALOGUE_STATUS.enabled})`),
  createdAt: providers.createdAt,
  updatedAt: providers.updatedAt,
};

export const ProviderRecord = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  sort: Type.Integer(),
  status: Type.Integer({ description: `Always ${CATALOGUE_STATUS.enabled}: customers see enabled providers only.` }),
  games_count: Type.Integer({ description: 'Its enabled games.' }),
  ...timestamps,
});

// Provider games ----------------------------------------------------------------------------

export const providerGameFields = getTableColumns(providerGames);

export const ProviderGameRecord = Type.Object({
  id: Type.Integer(),
  provider_id: Type.Integer(),
  name: Type.String(),
  slug: Type.String(),
  code: Type.String({ description: "The game's code at the provider." }),
  category_id: Type.Integer(),
  free: Type.Integer({ description: '0 or 1.' }),
  thumbnail: Type.Union([Type.String(), Type.Null()], { description: 'The upload `path`, or null.' }),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], { description: 'Where the thumbnail is served, or null.' }),
  sort: Type.Integer(),
  popular: Type.Integer({ description: '0 or 1.' }),
  status: Status,
  rtp: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], {
      description: 'REGULATION=br only: the return to player in percent (2 decimals), from its certificate; null when not stated.',
    }),
  ),
  ...timestamps,
});

const ProviderGameColumns = Type.Omit(ProviderGameRecord, ['rtp', 'thumbnail_url']);

/**
 * The columns as they are, plus the thumbnail's address through the storage's public URL, and
 * under REGULATION=br the RTP (`none` keeps the seed's record exactly).
 */
export function providerGamePresenter(
  appUrl: string,
  regulation: Regulation,
): (row: RowOf<typeof providerGameFields>) => Static<typeof ProviderGameRecord> {
  const columns = columnPresenter(ProviderGameColumns, providerGameFields);
  const shown = (row: RowOf<typeof providerGameFields>) => ({
    ...columns(row),
    thumbnail_url: row.thumbnail === null ? null : publicUrl(appUrl, row.thumbnail),
  });
  if (!rtpApplies(regulation)) return shown;
  return (row) => ({ ...shown(row), rtp: row.rtpBp === null ? null : rtpUnits(row.rtpBp) });
}
