import { and, eq } from 'drizzle-orm';
import { Type } from 'typebox';
import { QueryCache } from '../../../platform/cache/query-cache.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { CachedJson } from '../../../platform/http/json-text.ts';
import {
  equals,
  filter,
  FlagFilter,
  flagValue,
  IdFilter,
  listQuerySchema,
  listSource,
  MAX_ID,
  MAX_PER_PAGE,
  paginate,
  type ListQuery,
  type Page,
  type RowOf,
} from '../../../platform/pagination/list.ts';
import { customerProviderFields, pathKey, providerGameFields } from './records.ts';
import { CATALOGUE_STATUS, providerGames, providers } from '../tables.ts';

/** The invalidation topic of every catalogue read: any admin change to providers or their games publishes it. */
export const CATALOGUE_TOPIC = 'games:catalogue';

/** What the customer game list may be narrowed by (docs/api.md section 7). */
const gameFilters = {
  popular: filter(
    FlagFilter,
    (param) => eq(providerGames.popular, param),
    (value) => (flagValue(value) ? 1 : 0),
  ),
  category_id: equals(providerGames.categoryId, Type.Integer({ minimum: 0, maximum: MAX_ID })),
};
const gameSearch = [providerGames.name, providerGames.slug, providerGames.code];

const providerSource = listSource({
  table: providers,
  select: customerProviderFields,
  sort: providers.sort,
  timestamp: null,
  where: eq(providers.status, CATALOGUE_STATUS.enabled),
});

const gameSource = listSource({
  table: providerGames,
  select: providerGameFields,
  // The provider comes from the path, never from the query string (the schema below lacks it).
  filters: { ...gameFilters, provider_id: equals(providerGames.providerId, IdFilter) },
  search: gameSearch,
  sort: providerGames.sort,
  timestamp: null,
  where: eq(providerGames.status, CATALOGUE_STATUS.enabled),
});

export const providersQuery = listQuerySchema({ filters: {}, search: [], timestamp: null });
export const gamesQuery = listQuerySchema({ filters: gameFilters, search: gameSearch, timestamp: null });

export type ProviderPage = Page<RowOf<typeof customerProviderFields>>;
export type GamePage = Page<RowOf<typeof providerGameFields>>;

/** How long an entry may be served when no invalidation announces a change (see QueryCache). */
const MAX_AGE_MS = 60_000;
const MAX_ENTRIES = 2_000;

/** The page size as the answer depends on it: absent (links carry none) or the capped value. */
function perPageKey(query: ListQuery): number | null {
  return query.per_page === undefined ? null : Math.min(query.per_page, MAX_PER_PAGE);
}

/** A provider page's cache key: what of the query the answer depends on. */
function providersKey(query: ListQuery): string {
  return JSON.stringify([query.page ?? 1, perPageKey(query)]);
}

/**
 * A game page's cache key: the provider as the path names it (an id and a code of one provider
 * are two keys, as their links differ) and the normalized query, as the answer depends on them.
 */
function gamesKey(param: string, query: ListQuery): string {
  const popular = typeof query.popular === 'string' ? flagValue(query.popular) : null;
  const q = query.q === undefined || query.q === '' ? null : query.q;
  return JSON.stringify([param, query.page ?? 1, perPageKey(query), popular, query.category_id ?? null, q]);
}

/**
 * The customer catalogue: enabled providers and their enabled games, in `sort` order, read
 * through in-process caches keyed by the normalized query and emptied by every admin change to
 * providers or provider games (CATALOGUE_TOPIC), on every instance. Pages are kept as the JSON
 * the route's response schema wrote, in bytes and compressed (json-text.ts), so a hit costs
 * neither a query, a serialization nor a compression.
 */
export class Catalogue {
  readonly #db: Db;
  readonly #appUrl: string;
  readonly #providerIds: QueryCache<number | null>;
  readonly #providerPages: QueryCache<CachedJson>;
  readonly #gamePages: QueryCache<CachedJson>;

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
    this.#appUrl = ctx.config.appUrl;
    const options = { topic: CATALOGUE_TOPIC, maxEntries: MAX_ENTRIES, maxAgeMs: MAX_AGE_MS };
    this.#providerIds = new QueryCache(ctx.invalidation, options);
    this.#providerPages = new QueryCache(ctx.invalidation, options);
    this.#gamePages = new QueryCache(ctx.invalidation, options);
  }

  /**
   * The enabled provider a path value names (an all-digit id, else a code), or null; undefined
   * when the cache cannot say without a query (then ask `enabledProviderId`).
   */
  knownProviderId(param: string): number | null | undefined {
    return pathKey(param) === undefined ? null : this.#providerIds.peek(param);
  }

  /** The enabled provider a path value names (an all-digit id, else a code), or null. */
  async enabledProviderId(param: string): Promise<number | null> {
    const key = pathKey(param);
    if (key === undefined) return null;
    return this.#providerIds.get(param, async () => {
      const [row] = await this.#db
        .select({ id: providers.id })
        .from(providers)
        .where(and('id' in key ? eq(providers.id, key.id) : eq(providers.code, key.code), eq(providers.status, CATALOGUE_STATUS.enabled)));
      return row?.id ?? null;
    });
  }

  /** The cached answer of `providersPage`, when there is one: a hit needs no promise. */
  keptProvidersPage(query: ListQuery): CachedJson | undefined {
    return this.#providerPages.peek(providersKey(query));
  }

  async providersPage(query: ListQuery, serialize: (page: ProviderPage) => CachedJson): Promise<CachedJson> {
    return this.#providerPages.get(providersKey(query), async () =>
      serialize(await paginate(this.#db, providerSource, query, { base: this.#appUrl, path: '/api/providers' })),
    );
  }

  /** The cached answer of `gamesPage`, when there is one: a hit needs no promise. */
  keptGamesPage(param: string, query: ListQuery): CachedJson | undefined {
    return this.#gamePages.peek(gamesKey(param, query));
  }

  /** A page of the enabled games of the enabled provider `param` names (an id or a code); null when there is none. */
  async gamesPage(param: string, query: ListQuery, serialize: (page: GamePage) => CachedJson): Promise<CachedJson | null> {
    const providerId = await this.enabledProviderId(param);
    if (providerId === null) return null;
    const path = `/api/providers/${param}/games`;
    return this.#gamePages.get(gamesKey(param, query), async () =>
      serialize(await paginate(this.#db, gameSource, { ...query, provider_id: providerId }, { base: this.#appUrl, path })),
    );
  }
}
