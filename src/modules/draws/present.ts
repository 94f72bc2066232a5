import { Type } from 'typebox';
import { timestamps } from '../../platform/http/record.ts';
import { toUnits } from '../../platform/money.ts';
import type { Game } from '../games/tables.ts';
import type { AdminDrawRow, BetRow, DrawRow, RefundRow, SettlementRow } from './repository.ts';
import type { Regulation } from '../../config.ts';
import { rtpApplies } from '../../platform/rtp.ts';
import { derivedRtp, RTP_DESCRIPTION, type DrawSettings, type EffectiveSelection } from './settings.ts';
import { BET_STATUS, BET_STATUSES, DRAW_STATUSES } from './tables.ts';
import { oddsUnits } from './types/game-type.ts';

const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const DrawStatusFilter = DRAW_STATUSES.filter;
export const BetStatusFilter = BET_STATUSES.filter;
export const SettlementStatusFilter = Type.Integer({
  minimum: BET_STATUS.won,
  maximum: BET_STATUS.lost,
  'x-message': 'The selected :attribute is invalid.',
});

/** Every type's result fields (types/*.ts); `value` is the outcome number it was read from. */
export const ResultRecord = Type.Object(
  {
    value: Type.Integer({ description: 'The outcome number derived from the seed and the period (docs/draws.md, "Fairness").' }),
    dice: Type.Optional(Type.Array(Type.Integer(), { description: 'dice3: the three dice.' })),
    sum: Type.Optional(Type.Integer({ description: 'dice3: their sum.' })),
    slot: Type.Optional(Type.Integer({ description: 'double: the slot, 0–14.' })),
    color: Type.Optional(Type.String({ description: 'double: white (0), red (1–7) or black (8–14).' })),
  },
  { description: 'Null until drawn (and for a cancelled draw).' },
);

const drawFields = {
  id: Type.Integer(),
  game_id: Type.Integer(),
  type: Type.String({ description: 'The game type it was drawn as.' }),
  period: Type.String({ description: '`YYYYMMDD-NNNN`: the UTC day of the draw and its number that day.' }),
  status: Type.Integer({ description: DRAW_STATUSES.description }),
  seed_hash: Type.String({ description: 'SHA-256 (hex) of the server seed, published when the draw opens.' }),
  server_seed: Nullable(Type.String({ description: 'The server seed (64 hex characters), revealed when drawn or cancelled.' })),
  result: Nullable(ResultRecord),
  winning: Nullable(Type.Array(Type.String(), { description: 'The selections that won.' })),
  opens_at: Type.String({ format: 'date-time' }),
  closes_at: Type.String({ format: 'date-time', description: 'Betting closes.' }),
  draw_at: Type.String({ format: 'date-time' }),
  drawn_at: Instant,
  settled_at: Instant,
  cancelled_at: Instant,
  cancel_reason: Nullable(Type.String()),
  ...timestamps,
};

export const DrawRecord = Type.Object(drawFields);

export const AdminDrawRecord = Type.Object({
  ...drawFields,
  cancelled_by: Nullable(Type.Integer()),
  bets_count: Type.Integer(),
  bets_total: Type.Number({ description: 'Sum of the stakes.' }),
  payout_total: Type.Number({ description: 'Sum paid to winners (0 until settled).' }),
});

/** The open draw of a game, with its countdowns from the server's clock. */
export const CurrentDrawRecord = Type.Object({
  ...drawFields,
  closes_in: Type.Integer({ description: 'Whole seconds until betting closes (0 once closed).' }),
  draws_in: Type.Integer({ description: 'Whole seconds until the draw (0 once due).' }),
});

const iso = (at: Date | null): string | null => at?.toISOString() ?? null;

export function presentDraw(row: DrawRow) {
  return {
    id: row.id,
    game_id: row.game_id,
    type: row.type,
    period: row.period,
    status: row.status,
    seed_hash: row.seed_hash,
    server_seed: row.server_seed,
    result: row.result,
    winning: row.winning,
    opens_at: row.opens_at.toISOString(),
    closes_at: row.closes_at.toISOString(),
    draw_at: row.draw_at.toISOString(),
    drawn_at: iso(row.drawn_at),
    settled_at: iso(row.settled_at),
    cancelled_at: iso(row.cancelled_at),
    cancel_reason: row.cancel_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentAdminDraw(row: AdminDrawRow) {
  return {
    ...presentDraw(row),
    cancelled_by: row.cancelled_by,
    bets_count: row.bets_count,
    bets_total: toUnits(row.bets_total),
    payout_total: toUnits(row.payout_total),
  };
}

const secondsUntil = (at: Date, now: Date): number => Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000));

export function presentCurrentDraw(row: DrawRow, now: Date) {
  return { ...presentDraw(row), closes_in: secondsUntil(row.closes_at, now), draws_in: secondsUntil(row.draw_at, now) };
}

export const BetRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  game_id: Type.Integer(),
  draw_id: Type.Integer(),
  period: Type.String(),
  selection: Type.String(),
  amount: Type.Number(),
  odds: Type.Number({ description: 'Decimal odds, stake included, fixed when the bet was placed.' }),
  currency: Type.String(),
  status: Type.Integer({ description: BET_STATUSES.description }),
  payout: Nullable(Type.Number({ description: 'What a settled bet paid: odds × amount, half-up to the cent, or 0; null until settled.' })),
  settled_at: Nullable(Type.String({ format: 'date-time', description: 'When it was settled or refunded.' })),
  ...timestamps,
});

export function presentBet(row: BetRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    game_id: row.game_id,
    draw_id: row.draw_id,
    period: row.period,
    selection: row.selection,
    amount: toUnits(row.amount),
    odds: oddsUnits(row.odds),
    currency: row.currency,
    status: row.status,
    payout: row.payout === null ? null : toUnits(row.payout),
    settled_at: iso(row.settled_at),
    created_at: row.created_at.toISOString(),
    // A bet is never changed: what happened to it last is its settlement or refund.
    updated_at: (row.settled_at ?? row.created_at).toISOString(),
  };
}

export const SettlementRecord = Type.Object({
  id: Type.Integer({ description: 'The settled bet’s id (one settlement per bet).' }),
  bet_id: Type.Integer(),
  draw_id: Type.Integer(),
  game_id: Type.Integer(),
  user_id: Type.Integer(),
  currency: Type.String(),
  amount: Type.Number({ description: 'The stake.' }),
  payout: Type.Number({ description: 'Credited with a `win` line; 0 for a lost bet.' }),
  status: Type.Integer({ description: `${BET_STATUS.won} won, ${BET_STATUS.lost} lost.` }),
  ...timestamps,
});

export function presentSettlement(row: SettlementRow) {
  return {
    id: row.id,
    bet_id: row.id,
    draw_id: row.draw_id,
    game_id: row.game_id,
    user_id: row.user_id,
    currency: row.currency,
    amount: toUnits(row.amount),
    payout: toUnits(row.payout),
    status: row.status,
    created_at: row.created_at.toISOString(),
    updated_at: row.created_at.toISOString(),
  };
}

export const RefundRecord = Type.Object({
  id: Type.Integer({ description: 'The refunded bet’s id (one refund per bet).' }),
  bet_id: Type.Integer(),
  draw_id: Type.Integer(),
  game_id: Type.Integer(),
  user_id: Type.Integer(),
  currency: Type.String(),
  amount: Type.Number({ description: 'Returned with a `bet_refund` line.' }),
  ...timestamps,
});

export function presentRefund(row: RefundRow) {
  return {
    id: row.id,
    bet_id: row.id,
    draw_id: row.draw_id,
    game_id: row.game_id,
    user_id: row.user_id,
    currency: row.currency,
    amount: toUnits(row.amount),
    created_at: row.created_at.toISOString(),
    updated_at: row.created_at.toISOString(),
  };
}

const gameFields = {
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  type: Type.String({ description: 'The draw game type: dice3 or double.' }),
  status: Type.Integer({ description: '1 enabled, 2 maintenance (no bets; draws go on).' }),
  sort: Type.Integer(),
  rtp: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: RTP_DESCRIPTION })),
  ...timestamps,
};

/** An in-house game in the player's list. */
export const GameRecord = Type.Object(gameFields);

export const SelectionRecord = Type.Object({
  code: Type.String({ description: 'What a bet names as `selection`.' }),
  name: Type.String(),
  odds: Type.Number({ description: 'Decimal odds, stake included: a win pays odds × amount, half-up to the cent.' }),
});

export const GameDetailRecord = Type.Object({
  ...gameFields,
  interval_s: Type.Integer({ description: 'Seconds between draws.' }),
  close_before_s: Type.Integer({ description: 'Betting closes this many seconds before each draw.' }),
  min_bet: Type.Number(),
  max_bet: Type.Number(),
  selections: Type.Array(SelectionRecord),
  now: Type.String({ format: 'date-time', description: 'The server’s clock, which the countdowns count from.' }),
  draw: Nullable(CurrentDrawRecord),
  last_draw: Nullable(DrawRecord),
});

/** A game in the player's list; under REGULATION=br with its RTP (`none` keeps the seed's record exactly). */
export function presentGame(game: Game, regulation: Regulation) {
  return {
    id: game.id,
    name: game.name,
    code: game.code,
    type: game.type,
    status: game.status,
    sort: game.sort,
    ...(rtpApplies(regulation) ? { rtp: derivedRtp(game.type, game.settings) } : {}),
    created_at: game.createdAt.toISOString(),
    updated_at: game.updatedAt.toISOString(),
  };
}

export interface GameView {
  game: Game;
  settings: DrawSettings;
  selections: EffectiveSelection[];
  current: DrawRow | undefined;
  last: DrawRow | undefined;
  now: Date;
}

export function presentGameDetail(view: GameView, regulation: Regulation) {
  return {
    ...presentGame(view.game, regulation),
    interval_s: view.settings.intervalS,
    close_before_s: view.settings.closeBeforeS,
    min_bet: toUnits(view.settings.minBet),
    max_bet: toUnits(view.settings.maxBet),
    selections: view.selections.map((selection) => ({ code: selection.code, name: selection.name, odds: oddsUnits(selection.odds) })),
    now: view.now.toISOString(),
    draw: view.current === undefined ? null : presentCurrentDraw(view.current, view.now),
    last_draw: view.last === undefined ? null : presentDraw(view.last),
  };
}

export const VerificationRecord = Type.Object({
  draw_id: Type.Integer(),
  type: Type.String(),
  period: Type.String(),
  seed_hash: Type.String({ description: 'As published when the draw opened.' }),
  server_seed: Type.String(),
  hash_matches: Type.Boolean({ description: 'SHA-256 of the revealed seed equals the published hash.' }),
  hmac: Type.String({ description: 'HMAC-SHA256(seed, period), hex: the first block the outcome number is read from.' }),
  value: Type.Integer({ description: 'The outcome number recomputed from the seed and the period.' }),
  result: ResultRecord,
  winning: Type.Array(Type.String()),
  recorded_result: Nullable(ResultRecord),
  result_matches: Nullable(Type.Boolean({ description: 'The recomputed result is the recorded one; null for a cancelled draw.' })),
  verified: Type.Boolean({ description: 'The hash matches and so does the result (when there is one).' }),
});
