import { Type } from 'typebox';
import { defineResource } from '../../../platform/admin/resource.ts';
import type { AppContext } from '../../../platform/context.ts';
import { ValidationError } from '../../../platform/errors.ts';
import { codeSchema, slugSchema, SortField } from '../../../platform/http/fields.ts';
import { columnPresenter } from '../../../platform/http/record.ts';
import { equals, type RowOf } from '../../../platform/pagination/list.ts';
import type { GameAdapters } from '../adapters/adapter.ts';
import { mergeConfig, openConfig, publicConfig, sealConfig, secretsSet } from '../adapters/config.ts';
import { CATALOGUE_TOPIC } from './catalogue.ts';
import { AdminProviderRecord, providerFields } from './records.ts';
import { CATALOGUE_STATUS, providers } from '../tables.ts';
import { providerBets, providerTransactions } from '../seamless-wallet/tables.ts';

const ProviderBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  code: slugSchema(64),
  sort: Type.Optional(SortField),
  status: Type.Optional(codeSchema(CATALOGUE_STATUS, { description: 'Created enabled unless given' })),
  adapter: Type.Optional(Type.String({ maxLength: 64, description: 'An adapter code this service knows; default `demo`.' })),
  wallet_secret: Type.Optional(
    Type.String({
      minLength: 16,
      maxLength: 255,
      description: 'The key its wallet callbacks are signed with. Write-only: stored encrypted, never returned.',
    }),
  ),
  adapter_config: Type.Optional(
    Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description:
        'What the adapter needs besides the secret, shaped by the adapter (docs/api.md section 15; `hub88`: `base_url`, `operator_id`, ' +
        '`hub88_public_key`, write-only `private_key`). Merged field by field over the stored one (a field sent as null is removed); ' +
        'write-only fields are stored encrypted and never returned.',
    }),
  ),
});

const ProviderColumns = Type.Omit(AdminProviderRecord, ['adapter_config', 'adapter_secrets']);

/** CRUD /api/admin/providers (docs/api.md sections 5, 8 and 15). */
export function providersResource(ctx: AppContext, adapters: GameAdapters) {
  const columns = columnPresenter(ProviderColumns, providerFields);
  const present = (row: RowOf<typeof providerFields>) => {
    const spec = adapters.get(row.adapter)?.config;
    return { ...columns(row), adapter_config: publicConfig(spec, row.adapterConfig), adapter_secrets: secretsSet(spec, row.adapterConfig) };
  };
  return defineResource({
    path: '/api/admin/providers',
    param: 'id',
    permission: 'providers',
    tag: 'Admin: providers',
    table: providers,
    select: providerFields,
    record: AdminProviderRecord,
    present,
    createBody: ProviderBody,
    sort: providers.sort,
    filters: {
      code: equals(providers.code, Type.String({ maxLength: 64 })),
      status: equals(providers.status, codeSchema(CATALOGUE_STATUS)),
      adapter: equals(providers.adapter, Type.String({ maxLength: 64 })),
    },
    search: [providers.name, providers.code],
    unique: [{ field: 'code', column: providers.code }],
    inUse: {
      record: 'provider',
      keptBy: { provider_games: 'has games', game_sessions: 'has game launches' },
      // No foreign keys on the bet path (20261125100000): a provider's rounds and wallet calls,
      // even refused ones made with no session, are looked up through their unique keys.
      unkeyed: [
        { column: providerBets.providerId, says: 'has bets' },
        { column: providerTransactions.providerId, says: 'has wallet transactions' },
      ],
      disable: true,
    },
    values: async (body, w) => {
      if (body.adapter !== undefined && adapters.get(body.adapter) === undefined) {
        throw ValidationError.field('adapter', 'The selected adapter is invalid.');
      }
      return {
        name: body.name,
        code: body.code,
        sort: body.sort,
        status: body.status,
        adapter: body.adapter,
        walletSecret: body.wallet_secret === undefined ? undefined : ctx.keys.encrypt(body.wallet_secret),
        adapterConfig: adapterConfigOf(body, w.existing),
      };
    },
    // Customers read providers through a cache: every change empties it, here and on other instances.
    afterCommit: async () => ctx.invalidation.publish(CATALOGUE_TOPIC),
  });

  /**
   * The configuration a write leaves, checked by the adapter in effect (docs/api.md section 15):
   * undefined (left as it is) when neither the configuration nor the adapter changes on an update.
   */
  function adapterConfigOf(
    body: { adapter?: string | undefined; adapter_config?: object | null | undefined },
    existing: RowOf<typeof providerFields> | undefined,
  ): Record<string, unknown> | null | undefined {
    const code = body.adapter ?? existing?.adapter ?? 'demo';
    const changed = existing === undefined || code !== existing.adapter;
    if (!changed && body.adapter_config === undefined) return undefined;
    const spec = adapters.get(code)?.config;
    const stored = changed ? null : openConfig(spec, existing.adapterConfig, ctx.keys);
    // Null clears the configuration: merged over nothing, so an adapter that needs one says what is missing.
    const merged = mergeConfig(spec, code, body.adapter_config === null ? null : stored, body.adapter_config ?? undefined);
    return merged === null || spec === undefined ? null : sealConfig(spec, merged, ctx.keys);
  }
}
