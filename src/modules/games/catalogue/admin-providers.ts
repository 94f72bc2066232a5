import { Type } from 'typebox';
import { defineResource } from '../../../platform/admin/resource.ts';
import type { AppContext } from '../../../platform/context.ts';
import { ValidationError } from '../../../platform/errors.ts';
import { codeSchema, slugSchema, SortField } from '../../../platform/http/fields.ts';
import { equals } from '../../../platform/pagination/list.ts';
import type { GameAdapters } from '../adapters/adapter.ts';
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
});

/** CRUD /api/admin/providers (docs/api.md sections 5 and 8). */
export function providersResource(ctx: AppContext, adapters: GameAdapters) {
  return defineResource({
    path: '/api/admin/providers',
    param: 'id',
    permission: 'providers',
    tag: 'Admin: providers',
    table: providers,
    select: providerFields,
    record: AdminProviderRecord,
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
    values: async (body) => {
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
      };
    },
    // Customers read providers through a cache: every change empties it, here and on other instances.
    afterCommit: async () => ctx.invalidation.publish(CATALOGUE_TOPIC),
  });
}
