import { isDeepStrictEqual } from 'node:util';
import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import { sha256 } from '../../platform/crypto.ts';
import { isRetryable } from '../../platform/db/client.ts';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import { FieldCheck, formatUnits } from '../../platform/money.ts';
import { paginate, type ListQuery, type Page } from '../../platform/pagination/list.ts';
import type { Game } from '../games/tables.ts';
import { PlayRefusedError, refusalError } from '../limits/messages.ts';
import { refusalOf, type Refusal, type RefusalReason } from '../limits/repository.ts';
import { playerRefusal } from '../wallet/ledger.ts';
import { drawOutcome, seedHash } from './fairness.ts';
import type { GameView } from './present.ts';
import {
  cancelDraw,
  currentDraws,
  drawHistory,
  findAdminDraw,
  findBet,
  findDraw,
  findGame,
  preparePlaceBet,
  sealedSeed,
  type AdminDrawRow,
  type BetRow,
  type DrawRow,
  type PlaceBetStatement,
  type PlaceOutcomeRow,
} from './repository.ts';
import { checkGameSettings, effectiveSelections, type DrawSettings } from './settings.ts';
import { DRAW_STATUSES } from './tables.ts';
import type { DrawResult, GameType } from './types/game-type.ts';
import { gameType } from './types/registry.ts';

const RETRIES = 5;

/** An in-house game as it is played: its type and its settings, checked. */
export interface PlayableGame {
  game: Game;
  type: GameType;
  settings: DrawSettings;
}

/** A game's row as it is played, or undefined when its stored settings do not pass the check (settings.ts). */
export function playableGame(game: Game): PlayableGame | undefined {
  const checked = checkGameSettings(game.type, game.settings);
  return checked.ok ? { game, type: checked.type, settings: checked.settings } : undefined;
}

export interface BetRequest {
  userId: number;
  game: string;
  selection: string;
  amount: unknown;
  drawId: number | undefined;
  idempotencyKey: string | undefined;
}

export interface Verification {
  draw_id: number;
  type: string;
  period: string;
  seed_hash: string;
  server_seed: string;
  hash_matches: boolean;
  hmac: string;
  value: number;
  result: DrawResult;
  winning: string[];
  recorded_result: DrawResult | null;
  result_matches: boolean | null;
  verified: boolean;
}

/** A statement run on its own (no transaction) is tried again when the database rolled it back for a deadlock. */
async function retrying<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= RETRIES || !isRetryable(error)) throw error;
    }
  }
}

/** The player's own gates of a bet (responsible gambling, src/modules/limits): self-excluded, listed, no limits set. */
export interface BetGate {
  assertMayPlay(userId: number): Promise<void>;
}

/**
 * Draw games for players and operators (docs/draws.md): what a game shows, placing a bet (one
 * database call that checks the draw is open and takes the stake), cancelling a draw with its
 * refunds, and verifying a draw from its revealed seed. The scheduler (scheduler.ts) does the rest.
 */
export class DrawService {
  readonly #ctx: AppContext;
  readonly #clock: Clock;
  readonly #place: PlaceBetStatement;
  readonly #gate: BetGate | undefined;

  constructor(ctx: AppContext, clock: Clock, gate?: BetGate) {
    this.#ctx = ctx;
    this.#clock = clock;
    this.#gate = gate;
    this.#place = preparePlaceBet(ctx.db, ctx.config.regulation === 'br');
  }

  /** A game players may open: enabled or in maintenance, known type, sound settings; else 404. */
  async playable(param: string): Promise<PlayableGame> {
    const game = await findGame(this.#ctx.db, param);
    const playable = game === undefined ? undefined : playableGame(game);
    if (playable === undefined) throw new NotFoundError();
    return playable;
  }

  /**
   * The game a bet names. A disabled one is refused with a 422 on `game` rather than a 404: the
   * player's page was showing it a moment ago (an unknown one is still a 404).
   */
  async #bettable(param: string): Promise<PlayableGame> {
    const game = await findGame(this.#ctx.db, param, { disabled: true });
    if (game?.status === 0) throw unavailable();
    const playable = game === undefined ? undefined : playableGame(game);
    if (playable === undefined) throw new NotFoundError();
    return playable;
  }

  /** A game's past draws, newest first: a page of `drawHistory`. */
  async history(param: string, query: ListQuery, url: { base: string; path: string }): Promise<Page<DrawRow>> {
    const { game } = await this.playable(param);
    return paginate(this.#ctx.db, drawHistory, { ...query, game_id: game.id }, url);
  }

  async view(param: string): Promise<GameView> {
    const { game, type, settings } = await this.playable(param);
    const { current, last } = await currentDraws(this.#ctx.db, game.id);
    return { game, settings, selections: effectiveSelections(type, settings), current, last, now: this.#clock.now() };
  }

  /**
   * Takes a bet on the game's open draw: selection, amount and limits checked here from the
   * game's settings, then one call of `place_draw_bet` that checks the draw is still open on the
   * clock, writes the bet and takes the stake. The loser of a race for the last of a balance gets
   * the 422 on `amount`; with an Idempotency-Key a retry answers the first bet.
   *
   * The player's gates come before anything about the game or the draw (docs/regulation.md,
   * "Order of the gates"): a gated player is told what to do (403), not that no draw is open.
   * `place_draw_bet` checks them in the bet's own statement once nothing else refuses, so they
   * are asked for on their own only when the bet is refused for another reason: a bet that goes
   * through costs no extra round trip, and a replay still answers the first bet.
   */
  async placeBet(input: BetRequest): Promise<{ bet: BetRow; replayed: boolean }> {
    try {
      return await this.#placeBet(input);
    } catch (error) {
      if (error instanceof DomainError && !(error instanceof PlayRefusedError)) await this.#gate?.assertMayPlay(input.userId);
      throw error;
    }
  }

  async #placeBet(input: BetRequest): Promise<{ bet: BetRow; replayed: boolean }> {
    for (let attempt = 1; attempt <= RETRIES; attempt++) {
      const { game, type, settings } = await this.#bettable(input.game);
      const check = new FieldCheck();
      const selection = effectiveSelections(type, settings).find((item) => item.code === input.selection);
      if (selection === undefined) check.add('selection', 'The selected selection is invalid.');
      const amount = check.money('amount', input.amount, { min: 1n });
      if (!check.failed && amount < settings.minBet) check.add('amount', `The amount must be at least ${formatUnits(settings.minBet)}.`);
      if (!check.failed && amount > settings.maxBet) {
        check.add('amount', `The amount must not be greater than ${formatUnits(settings.maxBet)}.`);
      }
      const requestKey = input.idempotencyKey;
      check.throwIfFailed();
      // Maintenance is the database function's to say, after it looked for a replay of the key.

      let row: PlaceOutcomeRow;
      try {
        [row] = (await retrying(() =>
          this.#place.execute({
            userId: input.userId,
            gameId: game.id,
            gameType: game.type,
            gameSettings: JSON.stringify(game.settings),
            drawId: input.drawId ?? null,
            selection: selection!.code,
            amount,
            odds: selection!.odds,
            currency: this.#ctx.config.defaultCurrency,
            now: this.#clock.now(),
            requestKey: requestKey ?? null,
            requestDigest:
              requestKey === undefined ? null : sha256(JSON.stringify([game.id, selection!.code, String(amount), input.drawId ?? null])),
          }),
        )) as [PlaceOutcomeRow];
      } catch (error) {
        throw playerRefusal(error) ?? error;
      }
      switch (row.outcome) {
        case 'placed':
        case 'replayed':
          // One statement on its own, committed by now; a replay moved nothing.
          if (row.outcome === 'placed') this.#ctx.money.ledgerLine('bet', -amount);
          return { bet: (await findBet(this.#ctx.db, row.betId!))!, replayed: row.outcome === 'replayed' };
        case 'key_reused':
          throw ValidationError.field('idempotency_key', 'The Idempotency-Key was already used for a different bet.');
        case 'unknown':
          throw unavailable();
        case 'maintenance':
          throw maintenance();
        case 'refused':
          // REGULATION=br: self-excluded, listed, no limits set, or past a loss limit (docs/regulation.md).
          throw refusalError(
            refusalOf({
              reason: row.refusal as RefusalReason,
              period: row.refusalPeriod as Refusal['period'],
              limitCents: row.limitCents,
              leftCents: row.leftCents,
              until: row.excludedUntil,
            })!,
            'bet',
          );
        case 'closed':
          throw await this.#closed(game, input.drawId);
        case 'stale':
        // The game changed since it was read: read it again.
      }
    }
    throw new Error('The game kept changing during a bet.');
  }

  /** The 422 of a bet that found no draw open, saying when the next one opens. */
  async #closed(game: Game, drawId: number | undefined): Promise<ValidationError> {
    const field = drawId === undefined ? 'draw' : 'draw_id';
    const { current } = await currentDraws(this.#ctx.db, game.id);
    const now = this.#clock.now();
    if (current === undefined) return ValidationError.field(field, 'No draw is open for bets right now; the next one opens in a moment.');
    const seconds = Math.max(1, Math.ceil((current.draw_at.getTime() - now.getTime()) / 1000));
    const inAbout = `in about ${seconds} second${seconds === 1 ? '' : 's'}`;
    if (current.type !== game.type) {
      return ValidationError.field(field, `The game has just changed; bets open again with its next draw, ${inAbout}.`);
    }
    if (drawId !== undefined && current.id !== drawId && current.closes_at > now) {
      return ValidationError.field(field, `Betting on that draw has closed; draw ${current.period} is open for bets now.`);
    }
    return ValidationError.field(field, `Betting on draw ${current.period} has closed; the next draw opens when it is drawn, ${inAbout}.`);
  }

  /**
   * An operator cancels an undrawn draw, in their logged transaction: the seed is revealed and
   * every bet refunded exactly once (cancel_draw); the refund lines are counted in the metrics
   * once that committed. 409 for a draw already drawn or cancelled.
   */
  async cancel(entry: OperationEntry, id: number, reason: string): Promise<AdminDrawRow> {
    const row = await loggedTransaction(this.#ctx.db, entry, async (tx) => {
      const sealed = await sealedSeed(tx, id);
      const outcome =
        sealed === undefined
          ? undefined
          : await cancelDraw(tx, { id, actorId: entry.userId, reason, seed: this.#ctx.keys.decrypt(sealed.sealed) });
      if (outcome?.outcome === 'done') return (await findAdminDraw(tx, id))!;
      if (outcome?.outcome === 'bad_seed') throw new Error(`Draw ${id}: the sealed seed does not match its published hash.`);
      const draw = await findDraw(tx, id);
      if (draw === undefined) throw new NotFoundError();
      throw new ConflictError(`A draw that is ${DRAW_STATUSES.nameOf(draw.status)} cannot be cancelled.`, 'invalid_transition');
    });
    // One `bet_refund` line per bet, which the cancelled draw's totals count.
    this.#ctx.money.ledgerLines('bet_refund', row.bets_count, row.bets_total);
    return row;
  }

  /** Recomputes a draw from its revealed seed (docs/draws.md, "Checking a draw yourself"). */
  async verify(id: number): Promise<Verification> {
    const draw = await findDraw(this.#ctx.db, id);
    if (draw === undefined) throw new NotFoundError();
    const seed = draw.server_seed;
    if (seed === null) {
      throw new ConflictError(
        `Draw ${draw.period} is not drawn yet: its seed is revealed when it is drawn. Its published seed hash is ${draw.seed_hash}.`,
        'not_drawn',
      );
    }
    const type = gameType(draw.type);
    if (type === undefined) throw new Error(`Draw ${id} has the unknown type ${draw.type}.`);
    const outcome = drawOutcome(type, seed, draw.period);
    const hashMatches = seedHash(seed) === draw.seed_hash;
    const resultMatches =
      draw.result === null ? null : isDeepStrictEqual(outcome.result, draw.result) && isDeepStrictEqual(outcome.winning, draw.winning);
    return {
      draw_id: draw.id,
      type: draw.type,
      period: draw.period,
      seed_hash: draw.seed_hash,
      server_seed: seed,
      hash_matches: hashMatches,
      hmac: outcome.hmac,
      value: outcome.result.value,
      result: outcome.result,
      winning: outcome.winning,
      recorded_result: draw.result,
      result_matches: resultMatches,
      verified: hashMatches && resultMatches !== false,
    };
  }
}

function unavailable(): ValidationError {
  return ValidationError.field('game', 'The game is not available: it has been disabled.');
}

function maintenance(): ValidationError {
  return ValidationError.field('game', 'The game is under maintenance: bets are not taken right now; draws go on.');
}
