import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../../platform/db/columns.ts';
import type { WalletStatus } from '../adapters/adapter.ts';

/**
 * `provider_bets.status`, the one declaration of its codes: schemas and filters use it, and the
 * wallet's SQL functions are handed it (repository.ts).
 */
export const PROVIDER_BET_STATUS = { open: 0, settled: 1, refunded: 2 } as const;

/** migrations/20261125100000_provider_wallet.sql: one row per game round. */
export const providerBets = pgTable(
  'provider_bets',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    // No foreign keys on the bet path: see the migration.
    userId: int8('user_id').notNull(),
    providerId: int8('provider_id').notNull(),
    providerGameId: int8('provider_game_id').notNull(),
    roundId: text('round_id').notNull(),
    betAmount: cents('bet_amount').notNull(),
    winAmount: cents('win_amount').notNull().default(0n),
    /** Stakes given back by refunds; not in the record (the status says refunded). */
    refundAmount: cents('refund_amount').notNull().default(0n),
    currency: text('currency').notNull(),
    status: smallint('status').notNull().default(PROVIDER_BET_STATUS.open),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
    settledAt: instant('settled_at'),
  },
  (table) => [unique('provider_bets_round_unique').on(table.providerId, table.roundId)],
);

/** Every money call by the provider's transaction id, with its signed body kept for disputes (credentials redacted). */
export const providerTransactions = pgTable(
  'provider_transactions',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    providerId: int8('provider_id').notNull(),
    transactionId: text('transaction_id').notNull(),
    kind: text('kind').$type<'bet' | 'win' | 'refund'>().notNull(),
    userId: int8('user_id'),
    providerBetId: int8('provider_bet_id'),
    roundId: text('round_id'),
    betTransactionId: text('bet_transaction_id'),
    amount: cents('amount'),
    currency: text('currency'),
    outcome: text('outcome').$type<WalletStatus>().notNull(),
    payload: jsonb('payload'),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [
    unique('provider_transactions_unique').on(table.providerId, table.transactionId),
    // The wins of a bet, for a transaction rollback (migrations/20261128300000_hub88.sql).
    index('provider_transactions_win_bet_idx')
      .on(table.providerId, table.betTransactionId)
      .where(sql`kind = 'win'`),
  ],
);

/**
 * `provider_win_holds.status`, the one declaration of its codes: a win over the operator's
 * ceiling waits `held` until staff release it (credited once) or refuse it (docs/games.md, "Held
 * wins"); the review function is handed them (repository.ts).
 */
export const PROVIDER_WIN_HOLD_STATUS = { held: 0, released: 1, refused: 2 } as const;

/** migrations/20261201090200_provider_win_ceiling.sql: a win the ceiling held, and what staff decided. */
export const providerWinHolds = pgTable(
  'provider_win_holds',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    providerId: int8('provider_id').notNull(),
    /** The held call's record in provider_transactions. */
    providerTransactionId: int8('provider_transaction_id').notNull(),
    transactionId: text('transaction_id').notNull(),
    betTransactionId: text('bet_transaction_id').notNull(),
    roundId: text('round_id').notNull(),
    providerBetId: int8('provider_bet_id').notNull(),
    userId: int8('user_id').notNull(),
    amount: cents('amount').notNull(),
    currency: text('currency').notNull(),
    roundClosed: boolean('round_closed').notNull(),
    /** The ceiling it was over (cents) and the `games` settings version that set it. */
    maxWin: cents('max_win').notNull(),
    settingsId: int8('settings_id').notNull(),
    status: smallint('status').notNull().default(PROVIDER_WIN_HOLD_STATUS.held),
    reason: text('reason'),
    reviewedBy: int8('reviewed_by'),
    reviewedAt: instant('reviewed_at'),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('provider_win_holds_transaction_unique').on(table.providerTransactionId),
    index('provider_win_holds_status_idx').on(table.status, table.id),
    index('provider_win_holds_user_idx').on(table.userId, table.id),
    index('provider_win_holds_provider_idx').on(table.providerId, table.id),
    index('provider_win_holds_created_idx').on(table.createdAt),
  ],
);

export type ProviderBet = typeof providerBets.$inferSelect;
export type ProviderTransaction = typeof providerTransactions.$inferSelect;
export type ProviderWinHold = typeof providerWinHolds.$inferSelect;

/**
 * The answer given to each provider request id, for protocols that promise the same answer to the
 * same request (Hub88's `request_uuid`; migrations/20261128300000_hub88.sql), pruned by housekeeping.
 */
export const providerRequests = pgTable(
  'provider_requests',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    providerId: int8('provider_id').notNull(),
    requestId: text('request_id').notNull(),
    /** SHA-256 of the request's content (canonical JSON): the same id with other content is another request. */
    bodyHash: text('body_hash').notNull(),
    /** The answer's JSON exactly as it was sent. */
    answer: text('answer').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [
    unique('provider_requests_unique').on(table.providerId, table.requestId),
    index('provider_requests_created_idx').on(table.createdAt),
  ],
);
