import type { FieldErrors } from '../../platform/errors.ts';
import { formatUnits, moneyProblem, toUnits } from '../../platform/money.ts';
import { formatRtp, MIN_RTP_BP, rtpUnits } from '../../platform/rtp.ts';
import { maxOdds, oddsUnits, winCounts, type GameType, type Odds } from './types/game-type.ts';
import { GAME_TYPES, gameType } from './types/registry.ts';

/**
 * The `settings` of an in-house draw game (docs/draws.md, "Settings"), checked and completed
 * with defaults for its `type`. The admin games resource calls `checkGameSettings` before it
 * writes a game and stores `json`; the scheduler and the bets read a stored game through the
 * same function, so a game written any other way with bad settings is simply not played.
 */
export interface DrawSettings {
  /** Seconds between draws; divides a day, so draw times fall on the same clock marks every day. */
  intervalS: number;
  /** Betting closes this many seconds before the draw. */
  closeBeforeS: number;
  minBet: bigint;
  maxBet: bigint;
  /** Odds that replace the type's defaults, by selection, in hundredths. */
  odds: Record<string, Odds>;
}

export const DEFAULT_SETTINGS: DrawSettings = { intervalS: 60, closeBeforeS: 10, minBet: 100n, maxBet: 100_000n, odds: {} };

const MIN_INTERVAL_S = 10;
const DAY_S = 86_400;
/** Betting stays open at least this long in every draw. */
const MIN_BETTING_S = 5;
/** Bounds a bet so odds × amount stays far inside BIGINT. */
export const MAX_BET_CENTS = 100_000_000n;
const MIN_ODDS = 101;
const KEYS = ['interval_s', 'close_before_s', 'min_bet', 'max_bet', 'odds'];

export type SettingsCheck =
  { ok: true; type: GameType; settings: DrawSettings; json: Record<string, unknown> } | { ok: false; errors: FieldErrors };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The stored form: every setting spelled out, money in currency units and odds as decimals (JSON conventions). */
export function settingsJson(settings: DrawSettings): Record<string, unknown> {
  return {
    interval_s: settings.intervalS,
    close_before_s: settings.closeBeforeS,
    min_bet: toUnits(settings.minBet),
    max_bet: toUnits(settings.maxBet),
    odds: Object.fromEntries(Object.entries(settings.odds).map(([code, odds]) => [code, oddsUnits(odds)])),
  };
}

/**
 * Validates and normalises the settings of a draw game of `type`. Errors are keyed as the admin
 * body names them: `type`, `settings`, `settings.interval_s`, `settings.odds.red`, …
 * `input` undefined or null means "all defaults".
 */
export function checkGameSettings(typeCode: string, input: unknown): SettingsCheck {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const type = gameType(typeCode);
  if (type === undefined) {
    add('type', `The selected type is invalid. Draw game types: ${[...GAME_TYPES.keys()].join(', ')}.`);
    return { ok: false, errors };
  }
  const raw = input ?? {};
  if (!isObject(raw)) {
    add('settings', 'The settings field must be an object.');
    return { ok: false, errors };
  }
  for (const key of Object.keys(raw).filter((key) => !KEYS.includes(key))) {
    add(`settings.${key}`, `The settings.${key} field is not a setting of a ${type.code} game; the settings are ${KEYS.join(', ')}.`);
  }

  const integer = (key: string, fallback: number, min: number, max: number): number => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      add(`settings.${key}`, `The settings.${key} field must be an integer.`);
      return fallback;
    }
    if (value < min || value > max) add(`settings.${key}`, `The settings.${key} field must be between ${min} and ${max}.`);
    return value;
  };
  const intervalS = integer('interval_s', DEFAULT_SETTINGS.intervalS, MIN_INTERVAL_S, DAY_S);
  if (!errors['settings.interval_s'] && DAY_S % intervalS !== 0) {
    add('settings.interval_s', 'The settings.interval_s field must divide a day (86400 seconds) evenly, e.g. 30, 60, 300 or 3600.');
  }
  const closeBeforeS = integer('close_before_s', Math.min(DEFAULT_SETTINGS.closeBeforeS, intervalS - MIN_BETTING_S), 0, DAY_S);
  if (!errors['settings.close_before_s'] && intervalS - closeBeforeS < MIN_BETTING_S) {
    add(
      'settings.close_before_s',
      `The settings.close_before_s field must be at most ${Math.max(0, intervalS - MIN_BETTING_S)}: betting must stay open at least ${MIN_BETTING_S} seconds of each ${intervalS}-second draw.`,
    );
  }

  const money = (key: string, fallback: bigint, min: bigint): bigint => {
    const value = raw[key];
    if (value === undefined || value === null) return fallback;
    const outcome = moneyProblem(key, value, { min, max: MAX_BET_CENTS });
    if (typeof outcome === 'string') {
      add(`settings.${key}`, outcome);
      return fallback;
    }
    return outcome.cents;
  };
  const minBet = money('min_bet', DEFAULT_SETTINGS.minBet, 1n);
  const maxBet = money('max_bet', DEFAULT_SETTINGS.maxBet > minBet ? DEFAULT_SETTINGS.maxBet : minBet, 1n);
  if (!errors['settings.min_bet'] && !errors['settings.max_bet'] && maxBet < minBet) {
    add('settings.max_bet', `The max bet field must be at least the min bet, ${formatUnits(minBet)}.`);
  }

  const odds: Record<string, Odds> = {};
  const overrides = raw.odds ?? {};
  if (!isObject(overrides)) add('settings.odds', 'The settings.odds field must be an object of selections and their odds.');
  else {
    for (const [code, value] of Object.entries(overrides)) {
      const field = `settings.odds.${code}`;
      if (!type.selections.some((selection) => selection.code === code)) {
        add(field, `${code} is not a selection of ${type.code}; the selections are ${type.selections.map((s) => s.code).join(', ')}.`);
        continue;
      }
      const ceiling = maxOdds(type, code);
      const parsed = moneyProblem('odds', value);
      if (typeof parsed === 'string') add(field, parsed.replace('The odds field', `The odds of ${code}`));
      else if (parsed.cents < BigInt(MIN_ODDS)) add(field, `The odds of ${code} must be at least ${formatUnits(BigInt(MIN_ODDS))}.`);
      else if (parsed.cents > BigInt(ceiling)) {
        add(
          field,
          `The odds of ${code} must not be greater than ${formatUnits(BigInt(ceiling))}: higher odds would pay back more than is bet.`,
        );
      } else odds[code] = Number(parsed.cents);
    }
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const settings = { intervalS, closeBeforeS, minBet, maxBet, odds };
  return { ok: true, type, settings, json: settingsJson(settings) };
}

export interface EffectiveSelection {
  code: string;
  name: string;
  odds: Odds;
}

/** The selections of a game with the odds it pays: its overrides, else the type's defaults. */
export function effectiveSelections(type: GameType, settings: DrawSettings): EffectiveSelection[] {
  return type.selections.map((selection) => ({
    code: selection.code,
    name: selection.name,
    odds: settings.odds[selection.code] ?? selection.odds,
  }));
}

/**
 * What a selection returns at `odds`, in basis points, truncated: odds × P(win) = odds × wins /
 * outcomes (docs/draws.md). Truncated, so a return shown as 85.00 is never below 85 %.
 */
export function selectionReturnBp(type: GameType, code: string, odds: Odds): number {
  const wins = winCounts(type).get(code) ?? 0;
  return Math.floor((odds * wins * 100) / type.outcomes);
}

/** A game's RTP (docs/regulation.md, "RTP"): the lowest return among the selections it offers at its odds. */
export function gameRtpBp(type: GameType, settings: DrawSettings): number {
  return Math.min(...effectiveSelections(type, settings).map((selection) => selectionReturnBp(type, selection.code, selection.odds)));
}

/**
 * Under REGULATION=br an enabled game's every selection returns at least MIN_RTP_BP: the
 * refusals keyed `settings.odds.<selection>` (default odds included), with the lowest odds that
 * would do.
 */
export function rtpRefusals(type: GameType, settings: DrawSettings): FieldErrors {
  const errors: FieldErrors = {};
  const wins = winCounts(type);
  for (const selection of effectiveSelections(type, settings)) {
    const returned = selectionReturnBp(type, selection.code, selection.odds);
    if (returned >= MIN_RTP_BP) continue;
    const lowest = Math.ceil((MIN_RTP_BP * type.outcomes) / (100 * (wins.get(selection.code) ?? 1)));
    errors[`settings.odds.${selection.code}`] = [
      `The odds of ${selection.code} return ${formatRtp(returned)} %: an enabled game must return at least ` +
        `${formatRtp(MIN_RTP_BP)} % on every selection, so its odds must be at least ${formatUnits(BigInt(lowest))}.`,
    ];
  }
  return errors;
}

export const RTP_DESCRIPTION =
  'REGULATION=br only: the return to player in percent (2 decimals, truncated), the lowest return among its selections at its odds; null when its stored settings do not pass.';

/** A stored game's RTP in percent as records show it, or null when its settings do not pass (such a game is not played). */
export function derivedRtp(typeCode: string, stored: unknown): number | null {
  const check = checkGameSettings(typeCode, stored);
  return check.ok ? rtpUnits(gameRtpBp(check.type, check.settings)) : null;
}
