import { nationalExclusions, selfExclusions, userLimits } from '../limits/tables.ts';
import { and, desc, eq, inArray, lte, sql } from 'drizzle-orm';
import { correlated } from '../../platform/db/columns.ts';
import type { Db } from '../../platform/db/client.ts';
import { outcomeColumn, resultColumn, smallints } from '../../platform/db/function-calls.ts';
import { equals, IdFilter, listSource, type RowOf } from '../../platform/pagination/list.ts';
import { Type } from 'typebox';
import { games, type Game } from '../games/tables.ts';
import { BET_STATUS, DRAW_STATUS, drawBets, drawRefunds, draws, drawSettlements } from './tables.ts';
import type { DrawResult } from './types/game-type.ts';

/** A draw as players see it: never the sealed seed. */
export const drawFields = {
  id: draws.id,
  game_id: draws.gameId,
  type: draws.type,
  period: draws.period,
  status: draws.status,
  seed_hash: draws.seedHash,
  server_seed: draws.serverSeed,
  result: draws.result,
  winning: draws.winning,
  opens_at: draws.opensAt,
  closes_at: draws.closesAt,
  draw_at: draws.drawAt,
  drawn_at: draws.drawnAt,
  settled_at: draws.settledAt,
  cancelled_at: draws.cancelledAt,
  cancel_reason: draws.cancelReason,
  created_at: draws.createdAt,
  updated_at: draws.updatedAt,
};

/**
 * Bets of a draw as operators see them: the totals written when it was settled or cancelled,
 * counted live while its bets are still open.
 */
const liveBets = (what: 'count' | 'total') =>
  correlated<string>(
    sql`(select ${sql.raw(what === 'count' ? 'count(*)' : 'coalesce(sum(b.amount), 0)')} from draw_bets b where b.draw_id = ${draws.id})`,
  );

/** Settled and cancelled: the draw's totals are written (settle_draw, cancel_draw). */
const totalled = sql.raw(`${DRAW_STATUS.settled}, ${DRAW_STATUS.cancelled}`);

export const adminDrawFields = {
  ...drawFields,
  cancelled_by: draws.cancelledBy,
  bets_count: sql<number>`case when ${draws.status} in (${totalled}) then ${draws.betsCount} else ${liveBets('count')} end`.mapWith(Number),
  bets_total: sql<bigint>`case when ${draws.status} in (${totalled}) then ${draws.betsTotal} else ${liveBets('total')} end`.mapWith(BigInt),
  payout_total: draws.payoutTotal,
};

export type DrawRow = RowOf<typeof drawFields>;

/** What players see of a game's past: drawn, settled and cancelled draws, with their seeds revealed. */
export const drawHistory = listSource({
  table: draws,
  select: drawFields,
  filters: {
    game_id: equals(draws.gameId, IdFilter),
    status: equals(
      draws.status,
      Type.Integer({ minimum: DRAW_STATUS.drawn, maximum: DRAW_STATUS.cancelled, 'x-message': 'The selected :attribute is invalid.' }),
    ),
  },
  where: inArray(draws.status, [DRAW_STATUS.drawn, DRAW_STATUS.settled, DRAW_STATUS.cancelled]),
});
export type AdminDrawRow = RowOf<typeof adminDrawFields>;

/** What became of a bet: its settlement (won 1, lost 2), its refund (3), or nothing yet (0). */
export const betStatus = correlated<number>(
  sql`coalesce((select s.status from draw_settlements s where s.id = ${drawBets.id}),
    (select ${sql.raw(String(BET_STATUS.refunded))} from draw_refunds r where r.id = ${drawBets.id}), ${sql.raw(String(BET_STATUS.open))})`,
).mapWith(Number);

export const betFields = {
  id: drawBets.id,
  user_id: drawBets.userId,
  game_id: drawBets.gameId,
  draw_id: drawBets.drawId,
  period: correlated<string>(sql`(select d.period from draws d where d.id = ${drawBets.drawId})`),
  selection: drawBets.selection,
  amount: drawBets.amount,
  odds: drawBets.odds,
  currency: drawBets.currency,
  status: betStatus,
  payout: correlated<bigint | null>(sql`(select s.payout from draw_settlements s where s.id = ${drawBets.id})`).mapWith(
    drawSettlements.payout,
  ),
  settled_at: correlated<Date | null>(
    sql`coalesce((select s.created_at from draw_settlements s where s.id = ${drawBets.id}),
      (select r.created_at from draw_refunds r where r.id = ${drawBets.id}))`,
  ).mapWith(drawSettlements.createdAt),
  created_at: drawBets.createdAt,
};

export type BetRow = RowOf<typeof betFields>;

export const settlementFields = {
  id: drawSettlements.id,
  draw_id: drawSettlements.drawId,
  game_id: drawSettlements.gameId,
  user_id: drawSettlements.userId,
  currency: drawSettlements.currency,
  amount: drawSettlements.amount,
  payout: drawSettlements.payout,
  status: drawSettlements.status,
  created_at: drawSettlements.createdAt,
};

export const refundFields = {
  id: drawRefunds.id,
  draw_id: drawRefunds.drawId,
  game_id: drawRefunds.gameId,
  user_id: drawRefunds.userId,
  currency: drawRefunds.currency,
  amount: drawRefunds.amount,
  created_at: drawRefunds.createdAt,
};

export type SettlementRow = RowOf<typeof settlementFields>;
export type RefundRow = RowOf<typeof refundFields>;

const UNDRAWN = [DRAW_STATUS.open, DRAW_STATUS.closed];

/**
 * An in-house game by id or code: only those players may see (enabled or in maintenance), or
 * any status when `disabled` is asked for too.
 */
export async function findGame(db: Db, param: string, options: { disabled?: boolean } = {}): Promise<Game | undefined> {
  const byId = /^[0-9]+$/.test(param);
  if (byId && !Number.isSafeInteger(Number(param))) return undefined;
  const key = byId ? eq(games.id, Number(param)) : eq(games.code, param);
  const [row] = await db
    .select()
    .from(games)
    .where(options.disabled === true ? key : and(key, inArray(games.status, [1, 2])));
  return row;
}

/** The games the scheduler keeps drawing: enabled and in maintenance (no bets, draws go on). */
export function scheduledGames(db: Db): Promise<Game[]> {
  return db
    .select()
    .from(games)
    .where(inArray(games.status, [1, 2]));
}

export async function findDraw(db: Db, id: number): Promise<DrawRow | undefined> {
  const [row] = await db.select(drawFields).from(draws).where(eq(draws.id, id));
  return row;
}

export async function findAdminDraw(db: Db, id: number): Promise<AdminDrawRow | undefined> {
  const [row] = await db.select(adminDrawFields).from(draws).where(eq(draws.id, id));
  return row;
}

export async function findBet(db: Db, id: number): Promise<BetRow | undefined> {
  const [row] = await db.select(betFields).from(drawBets).where(eq(drawBets.id, id));
  return row;
}

/** The game's draw still taking or awaiting bets (at most one), and its latest with a result. */
export async function currentDraws(db: Db, gameId: number): Promise<{ current: DrawRow | undefined; last: DrawRow | undefined }> {
  const [current] = await db
    .select(drawFields)
    .from(draws)
    .where(and(eq(draws.gameId, gameId), inArray(draws.status, UNDRAWN)));
  const [last] = await db
    .select(drawFields)
    .from(draws)
    .where(and(eq(draws.gameId, gameId), inArray(draws.status, [DRAW_STATUS.drawn, DRAW_STATUS.settled])))
    .orderBy(desc(draws.id))
    .limit(1);
  return { current, last };
}

/** The game's newest draw, whatever its status: where the next one's period and time follow from. */
export async function latestDraw(db: Db, gameId: number): Promise<Pick<DrawRow, 'period' | 'status' | 'draw_at'> | undefined> {
  const [row] = await db
    .select({ period: draws.period, status: draws.status, draw_at: draws.drawAt })
    .from(draws)
    .where(eq(draws.gameId, gameId))
    .orderBy(desc(draws.id))
    .limit(1);
  return row;
}

export interface NewDraw {
  gameId: number;
  type: string;
  period: string;
  opensAt: Date;
  closesAt: Date;
  drawAt: Date;
  seedHash: string;
  seedEncrypted: string;
}

/** Opens a draw; undefined when another process opened this period (or another undrawn draw) first. */
export async function insertDraw(db: Db, draw: NewDraw): Promise<number | undefined> {
  const [row] = await db.insert(draws).values(draw).onConflictDoNothing().returning({ id: draws.id });
  return row?.id;
}

/** Betting ends on time even if no bet came to notice it: 0 → 1 for every draw past its close. */
export async function closeDue(db: Db, now: Date): Promise<number> {
  const closed = await db
    .update(draws)
    .set({ status: DRAW_STATUS.closed, updatedAt: sql`now()` })
    .where(and(eq(draws.status, DRAW_STATUS.open), lte(draws.closesAt, now)))
    .returning({ id: draws.id });
  return closed.length;
}

export interface DueDraw {
  id: number;
  type: string;
  period: string;
  seedHash: string;
  seedEncrypted: string | null;
}

/** Draws whose time has come and that are not drawn yet, oldest first. */
export function dueToDraw(db: Db, now: Date): Promise<DueDraw[]> {
  return db
    .select({ id: draws.id, type: draws.type, period: draws.period, seedHash: draws.seedHash, seedEncrypted: draws.seedEncrypted })
    .from(draws)
    .where(and(inArray(draws.status, UNDRAWN), lte(draws.drawAt, now)))
    .orderBy(draws.drawAt, draws.id);
}

/**
 * Records a draw's result and reveals its seed: 0|1 → 2, once (false when it was drawn or
 * cancelled meanwhile). It waits for bets in flight, which share-lock the draw.
 */
export async function revealDraw(db: Db, id: number, seed: string, result: DrawResult, winning: string[]): Promise<boolean> {
  const drawn = await db
    .update(draws)
    .set({
      status: DRAW_STATUS.drawn,
      serverSeed: seed,
      seedEncrypted: null,
      result,
      winning,
      drawnAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(draws.id, id), inArray(draws.status, UNDRAWN)))
    .returning({ id: draws.id });
  return drawn.length > 0;
}

/** Drawn draws whose bets are not all settled yet (a crash may have left one half done). */
export async function drawnUnsettled(db: Db): Promise<number[]> {
  const found = await db.select({ id: draws.id }).from(draws).where(eq(draws.status, DRAW_STATUS.drawn)).orderBy(draws.id);
  return found.map((row) => row.id);
}

/**
 * What `settle_draw` answers (db/functions/settle_draw.sql): 'settled' (nothing left),
 * 'partial' (call again), 'settled_before', 'not_drawn', 'unknown'.
 */
export const SETTLE_DRAW_OUTCOMES = ['settled', 'partial', 'settled_before', 'not_drawn', 'unknown'] as const;

export interface SettleOutcome {
  outcome: (typeof SETTLE_DRAW_OUTCOMES)[number];
  settled: number;
  won: number;
  paid: bigint;
}

/** `settle_draw`: up to `limit` bets of a drawn draw settled in one transaction (its file says how). */
export async function settleDraw(db: Db, drawId: number, limit: number): Promise<SettleOutcome> {
  const [row] = await db
    .select({
      outcome: outcomeColumn('settle_draw', SETTLE_DRAW_OUTCOMES),
      settled: resultColumn('settled', draws.betsCount),
      won: resultColumn('won', draws.betsCount),
      paid: resultColumn('paid', draws.payoutTotal),
    })
    .from(
      sql`settle_draw(${drawId}::bigint, ${limit}::integer, ${DRAW_STATUS.drawn}::smallint, ${DRAW_STATUS.settled}::smallint,
        ${BET_STATUS.won}::smallint, ${BET_STATUS.lost}::smallint)`,
    );
  const { outcome, settled, won, paid } = row!;
  return { outcome, settled: settled ?? 0, won: won ?? 0, paid: paid ?? 0n };
}

/** What `cancel_draw` answers: 'done' (refunded: how many bets), 'conflict' (status: the current one), 'unknown', 'bad_seed'. */
export const CANCEL_DRAW_OUTCOMES = ['done', 'conflict', 'unknown', 'bad_seed'] as const;

export type CancelOutcome =
  { outcome: 'done'; refunded: number } | { outcome: 'conflict'; status: number } | { outcome: 'unknown' | 'bad_seed' };

/** `cancel_draw`: the gate, the reveal and every refund, in the caller's transaction. */
export async function cancelDraw(db: Db, input: { id: number; actorId: number; reason: string; seed: string }): Promise<CancelOutcome> {
  const [row] = await db
    .select({
      outcome: outcomeColumn('cancel_draw', CANCEL_DRAW_OUTCOMES),
      status: resultColumn('status', draws.status),
      refunded: resultColumn('refunded', draws.betsCount),
    })
    .from(
      sql`cancel_draw(${input.id}::bigint, ${input.actorId}::bigint, ${input.reason}::text, ${input.seed}::text, ${smallints(UNDRAWN)},
        ${DRAW_STATUS.cancelled}::smallint)`,
    );
  const { outcome, status, refunded } = row!;
  if (outcome === 'done') return { outcome, refunded: refunded ?? 0 };
  if (outcome === 'conflict') return { outcome, status: status! };
  return { outcome };
}

/** The sealed seed of an undrawn draw, for a cancel (undefined once revealed or for no such draw). */
export async function sealedSeed(db: Db, id: number): Promise<{ sealed: string; hash: string } | undefined> {
  const [row] = await db
    .select({ sealed: draws.seedEncrypted, hash: draws.seedHash })
    .from(draws)
    .where(and(eq(draws.id, id), inArray(draws.status, UNDRAWN)));
  return row?.sealed == null ? undefined : { sealed: row.sealed, hash: row.hash };
}

const p = (name: string) => sql.placeholder(name);

/**
 * What `place_draw_bet` answers (db/functions/place_draw_bet.sql): 'placed' and 'replayed'
 * with the bet; 'key_reused', 'unknown' (no such game, or disabled), 'maintenance', 'stale' (the
 * game changed since it was read), 'closed' (no draw open for bets) and, under REGULATION=br,
 * 'refused' (responsible gambling: its reason, the loss window, limit and what is left, or the
 * exclusion's end) move nothing.
 */
export const PLACE_DRAW_BET_OUTCOMES = [
  'placed',
  'replayed',
  'key_reused',
  'unknown',
  'maintenance',
  'stale',
  'closed',
  'refused',
] as const;

const placeOutcome = {
  outcome: outcomeColumn('place_draw_bet', PLACE_DRAW_BET_OUTCOMES),
  betId: resultColumn('bet_id', drawBets.id),
  drawId: resultColumn('draw_id', drawBets.drawId),
  period: resultColumn('period', draws.period),
  refusal: resultColumn('refusal', nationalExclusions.cpf),
  refusalPeriod: resultColumn('refusal_period', nationalExclusions.cpf),
  limitCents: resultColumn('limit_cents', userLimits.value),
  leftCents: resultColumn('left_cents', userLimits.value),
  excludedUntil: resultColumn('excluded_until', selfExclusions.until),
};

export type PlaceOutcomeRow = RowOf<typeof placeOutcome>;

/** `place_draw_bet` as a named prepared statement: one round trip per bet, parsed once per connection. */
export function preparePlaceBet(db: Db, regulated = false) {
  return (
    db
      .select(placeOutcome)
      .from(
        sql`place_draw_bet(${p('userId')}::bigint, ${p('gameId')}::bigint, ${p('gameType')}::text, ${p('gameSettings')}::jsonb,
        ${p('drawId')}::bigint,
        ${p('selection')}::text, ${p('amount')}::bigint, ${p('odds')}::integer, ${p('currency')}::text, ${p('now')}::timestamptz,
        ${p('requestKey')}::text, ${p('requestDigest')}::text, ${DRAW_STATUS.open}::smallint, ${regulated}::boolean)`,
      )
      // One name per variant: a connection may hold both (tests run both regulations on one database).
      .prepare(regulated ? 'place_draw_bet_regulated' : 'place_draw_bet')
  );
}

export type PlaceBetStatement = ReturnType<typeof preparePlaceBet>;
