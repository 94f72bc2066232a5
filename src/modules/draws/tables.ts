import { foreignKey, integer, jsonb, pgTable, smallint, text, unique } from 'drizzle-orm/pg-core';
import { cents, instant, int8 } from '../../platform/db/columns.ts';
import { statusCodes } from '../../platform/status.ts';
import { games } from '../games/tables.ts';
import { users } from '../users/tables.ts';
import type { DrawResult } from './types/game-type.ts';

/** migrations/20261125110000_draws.sql. Status: DRAW_STATUS. */
export const draws = pgTable(
  'draws',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    gameId: int8('game_id')
      .notNull()
      .references(() => games.id, { onDelete: 'restrict' }),
    /** The game's type when the draw opened: what its result is read as. */
    type: text('type').notNull(),
    period: text('period').notNull(),
    status: smallint('status').notNull().default(0),
    opensAt: instant('opens_at').notNull(),
    closesAt: instant('closes_at').notNull(),
    drawAt: instant('draw_at').notNull(),
    seedHash: text('seed_hash').notNull(),
    /** Encrypted with the app key until the draw; never returned. */
    seedEncrypted: text('seed_encrypted'),
    /** Null until drawn or cancelled, then public. */
    serverSeed: text('server_seed'),
    result: jsonb('result').$type<DrawResult>(),
    winning: jsonb('winning').$type<string[]>(),
    drawnAt: instant('drawn_at'),
    settledAt: instant('settled_at'),
    cancelledAt: instant('cancelled_at'),
    cancelledBy: int8('cancelled_by').references(() => users.id, { onDelete: 'set null' }),
    cancelReason: text('cancel_reason'),
    betsCount: integer('bets_count').notNull().default(0),
    betsTotal: cents('bets_total').notNull().default(0n),
    payoutTotal: cents('payout_total').notNull().default(0n),
    /** The last bet id settled (settle_draw works through a draw's bets in id order). */
    settledThrough: int8('settled_through').notNull().default(0),
    createdAt: instant('created_at').notNull().defaultNow(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (table) => [
    unique('draws_game_period_unique').on(table.gameId, table.period),
    // What a bet's key names (draw_bets_draw_game_fkey).
    unique('draws_id_game_unique').on(table.id, table.gameId),
  ],
);

/** Written once by place_draw_bet; what became of a bet is its settlement or refund (same id). */
export const drawBets = pgTable(
  'draw_bets',
  {
    id: int8('id').primaryKey().generatedAlwaysAsIdentity(),
    // The draw's game: the composite key below holds both (migration 20261201090100).
    drawId: int8('draw_id').notNull(),
    gameId: int8('game_id').notNull(),
    userId: int8('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    selection: text('selection').notNull(),
    amount: cents('amount').notNull(),
    /** Decimal odds in hundredths, as they were when the bet was placed. */
    odds: integer('odds').notNull(),
    currency: text('currency').notNull(),
    requestKey: text('request_key'),
    requestDigest: text('request_digest'),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (table) => [
    foreignKey({
      name: 'draw_bets_draw_game_fkey',
      columns: [table.drawId, table.gameId],
      foreignColumns: [draws.id, draws.gameId],
    }).onDelete('restrict'),
  ],
);

/** One per drawn bet, id = the bet's id; status BET_STATUS.won or lost. */
export const drawSettlements = pgTable('draw_settlements', {
  id: int8('id').primaryKey(),
  drawId: int8('draw_id').notNull(),
  gameId: int8('game_id').notNull(),
  userId: int8('user_id').notNull(),
  currency: text('currency').notNull(),
  amount: cents('amount').notNull(),
  payout: cents('payout').notNull(),
  status: smallint('status').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});

/** One per bet of a cancelled draw, id = the bet's id. */
export const drawRefunds = pgTable('draw_refunds', {
  id: int8('id').primaryKey(),
  drawId: int8('draw_id').notNull(),
  gameId: int8('game_id').notNull(),
  userId: int8('user_id').notNull(),
  currency: text('currency').notNull(),
  amount: cents('amount').notNull(),
  createdAt: instant('created_at').notNull().defaultNow(),
});

/** A draw's statuses, declared once: the scheduler closes and draws it, settle_draw settles it, cancel_draw cancels it. */
export const DRAW_STATUSES = statusCodes({
  open: 'open for bets',
  closed: 'betting closed',
  drawn: 'drawn (settling)',
  settled: 'settled',
  cancelled: 'cancelled (bets refunded)',
});
export const DRAW_STATUS = DRAW_STATUSES.code;

/**
 * A bet's status as every reader shows it, from its settlement or refund; a settlement's own
 * status is the bet's won or lost.
 */
export const BET_STATUSES = statusCodes({ open: 'open', won: 'won', lost: 'lost', refunded: 'refunded (draw cancelled)' });
export const BET_STATUS = BET_STATUSES.code;

export type Draw = typeof draws.$inferSelect;
export type DrawBet = typeof drawBets.$inferSelect;
