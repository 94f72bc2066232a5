import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { instant, int8 } from '../../platform/db/columns.ts';
import { users } from '../users/tables.ts';

/**
 * `providers.status` and `provider_games.status`: customers see, launch and bet on enabled rows
 * only. The one declaration of these codes: queries and schemas use it, and the wallet's SQL
 * functions are handed it (seamless-wallet/repository.ts).
 */
export const CATALOGUE_STATUS = { disabled: 0, enabled: 1 } as const;

/** `games.status`: an in-house (draw) game's state; the draws module reads it. */
export const GAME_STATUS = { disabled: 0, enabled: 1, maintenance: 2 } as const;

/** migrations/20261125090000_games_catalogue.sql */
export const providers = pgTable(
  'providers',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    sort: integer('sort').notNull().default(0),
    status: smallint('status').notNull().default(CATALOGUE_STATUS.enabled),
    adapter: text('adapter').notNull().default('demo'),
    /** Encrypted with the app key (Keyring.encrypt); never returned, `[redacted]` in the operation log. */
    walletSecret: text('wallet_secret'),
    /**
     * What the provider's adapter needs besides the secret (migrations/20261128300000_hub88.sql),
     * shaped by the adapter; its write-only fields are stored encrypted (adapters/config.ts).
     */
    adapterConfig: jsonb('adapter_config').$type<Record<string, unknown>>(),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('providers_code_unique').on(table.code),
    index('providers_sort_idx').on(table.sort, table.id),
    // The customer list: enabled providers in `sort` order (migrations/20261126090000_catalogue_customer_indexes.sql).
    index('providers_status_sort_idx').on(table.status, table.sort, table.id),
  ],
);

export const providerGames = pgTable(
  'provider_games',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    providerId: int8('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'restrict' }),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    code: text('code').notNull(),
    categoryId: int8('category_id').notNull().default(0),
    free: smallint('free').notNull().default(0),
    thumbnail: text('thumbnail'),
    sort: integer('sort').notNull().default(0),
    popular: smallint('popular').notNull().default(0),
    status: smallint('status').notNull().default(CATALOGUE_STATUS.enabled),
    /** Set when `games:sync` disabled the game because its provider stopped listing it (20261128300000). */
    delistedAt: instant('delisted_at'),
    /** Its certificate's return to player in basis points, the operator's (migrations/20261129100000_provider_game_rtp.sql, src/platform/rtp.ts). */
    rtpBp: integer('rtp_bp'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('provider_games_slug_unique').on(table.slug),
    index('provider_games_provider_sort_idx').on(table.providerId, table.sort, table.id),
    // The customer list: a provider's enabled games in `sort` order, and their count (20261126090000).
    index('provider_games_provider_status_sort_idx').on(table.providerId, table.status, table.sort, table.id),
  ],
);

/** In-house games: the draw games (src/modules/draws/); `status` is GAME_STATUS. */
export const games = pgTable(
  'games',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    code: text('code').notNull(),
    type: text('type').notNull(),
    status: smallint('status').notNull().default(GAME_STATUS.enabled),
    sort: integer('sort').notNull().default(0),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [unique('games_code_unique').on(table.code)],
);

/** A launch and the game session it becomes; tokens are stored as SHA-256 digests only. */
export const gameSessions = pgTable(
  'game_sessions',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    launchTokenHash: text('launch_token_hash').notNull(),
    sessionTokenHash: text('session_token_hash'),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    providerId: int8('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'restrict' }),
    providerGameId: int8('provider_game_id')
      .notNull()
      .references(() => providerGames.id, { onDelete: 'restrict' }),
    currency: text('currency').notNull(),
    demo: boolean('demo').notNull().default(false),
    launchExpiresAt: instant('launch_expires_at').notNull(),
    redeemedAt: instant('redeemed_at'),
    expiresAt: instant('expires_at').notNull(),
    /** When the signed-in session it was opened from ends (REGULATION=br, session_minutes): no bet after it. */
    endsAt: instant('ends_at'),
    /** The sign-in of the player's session it was launched from (the app's clock): a lowered session time ends both. */
    signedInAt: instant('signed_in_at'),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [
    unique('game_sessions_launch_token_unique').on(table.launchTokenHash),
    unique('game_sessions_session_token_unique').on(table.sessionTokenHash),
    index('game_sessions_created_idx').on(table.createdAt),
    // Deleting a user, provider or game checks its sessions (migrations/20261126100000_game_sessions_reference_indexes.sql).
    index('game_sessions_user_idx').on(table.userId),
    index('game_sessions_provider_idx').on(table.providerId),
    index('game_sessions_provider_game_idx').on(table.providerGameId),
    // Whether a newer money session of the game exists, for housekeeping (migrations/20261126090200_game_sessions_retention.sql).
    index('game_sessions_money_game_idx')
      .on(table.providerId, table.providerGameId, table.id)
      .where(sql`redeemed_at is not null and not demo`),
  ],
);

export type Provider = typeof providers.$inferSelect;
export type ProviderGame = typeof providerGames.$inferSelect;
export type Game = typeof games.$inferSelect;
export type GameSession = typeof gameSessions.$inferSelect;
