/**
 * What a draw game type is (docs/draws.md, "Game types"): a finite space of equally likely
 * outcomes, numbered 0 … outcomes − 1, the result each number stands for, the selections a player
 * may bet on with their default odds, and which selections a result makes win. The fairness code
 * turns a draw's seed and period into one uniform number of that space (fairness.ts); the type
 * only interprets it, so a new type is one file and a line in registry.ts.
 */

/** Odds are decimal odds in hundredths, stake included: 195 pays 1.95 × the amount. */
export type Odds = number;

export interface SelectionSpec {
  /** What a bet names: lower-case letters, digits and `_`. */
  code: string;
  /** How a person would say it. */
  name: string;
  /** Default odds in hundredths; a game may override them within the type's limits (settings.ts). */
  odds: Odds;
}

/** A result as JSON carries it; every type includes the number it was read from as `value`. */
export interface DrawResult {
  value: number;
  [field: string]: number | string | number[];
}

export interface GameType {
  /** The `type` of an in-house game. */
  readonly code: string;
  readonly name: string;
  /** Size of the outcome space; every outcome is equally likely. */
  readonly outcomes: number;
  readonly selections: readonly SelectionSpec[];
  /** The result the outcome number `value` (0 ≤ value < outcomes) stands for. */
  result(value: number): DrawResult;
  /** The selections the result makes win, in `selections` order. */
  winning(result: DrawResult): string[];
}

/** Odds as JSON carries them: 195 → 1.95 (display only; arithmetic stays in hundredths). */
export function oddsUnits(odds: Odds): number {
  return odds / 100;
}

const counted = new WeakMap<GameType, ReadonlyMap<string, number>>();

/** How many of the type's outcomes make each selection win: the exact probability is wins / outcomes. */
export function winCounts(type: GameType): ReadonlyMap<string, number> {
  let counts = counted.get(type);
  if (counts === undefined) {
    const tally = new Map(type.selections.map((selection) => [selection.code, 0]));
    for (let value = 0; value < type.outcomes; value++) {
      for (const code of type.winning(type.result(value))) tally.set(code, (tally.get(code) ?? 0) + 1);
    }
    counts = tally;
    counted.set(type, counts);
  }
  return counts;
}

/**
 * The largest odds a selection may have without returning more than it takes: odds × wins ≤
 * outcomes (a return to player of at most 100 %).
 */
export function maxOdds(type: GameType, code: string): Odds {
  const wins = winCounts(type).get(code) ?? 0;
  return wins === 0 ? 0 : Math.floor((type.outcomes * 100) / wins);
}
