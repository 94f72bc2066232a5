import { ValidationError, type FieldErrors } from './errors.ts';

/**
 * Money is integer cents (`bigint`) everywhere inside the service; JSON carries currency units
 * with at most two decimals (docs/api.md section 4). Rates are percentages with at most two
 * decimals, held as basis points (12.5 % = 1250n) so every computation stays in integers.
 */

/** Larger amounts are refused as absurd: 999,999,999,999.99 keeps every sum far inside BIGINT. */
export const MAX_CENTS = 99_999_999_999_999n;
export const MAX_RATE_BP = 10_000n;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Unit amounts that are a number or a numeric string; anything else is not money. */
function decimalText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'string') return value.trim();
  return undefined;
}

type Parsed = { ok: true; cents: bigint } | { ok: false; reason: 'type' | 'decimals' };

/** Parses a non-negative decimal in units into hundredths, keeping the sign apart. */
function parseHundredths(value: unknown): Parsed & { negative?: boolean } {
  let text = decimalText(value);
  if (text === undefined) return { ok: false, reason: 'type' };
  const negative = text.startsWith('-');
  if (negative) text = text.slice(1);
  const match = DECIMAL.exec(text);
  if (match === null) return { ok: false, reason: 'type' };
  const fraction = match[2] ?? '';
  if (fraction.length > 2) return { ok: false, reason: 'decimals' };
  const cents = BigInt(match[1]!) * 100n + BigInt(fraction.padEnd(2, '0'));
  return { ok: true, cents, negative };
}

export interface MoneyRule {
  /** Smallest accepted value in cents (inclusive); default 0. */
  min?: bigint;
  /** Largest accepted value in cents (inclusive); default MAX_CENTS. */
  max?: bigint;
  /** Accept a sign (adjustments); zero is then refused. */
  signed?: boolean;
}

/** The Laravel-style message for a money field, or undefined when it is valid. */
export function moneyProblem(field: string, value: unknown, rule: MoneyRule = {}): string | { cents: bigint } {
  const name = field.replaceAll('_', ' ');
  const parsed = parseHundredths(value);
  if (!parsed.ok) {
    return parsed.reason === 'decimals' ? `The ${name} field must have 0-2 decimal places.` : `The ${name} field must be a number.`;
  }
  const max = rule.max ?? MAX_CENTS;
  if (parsed.cents > MAX_CENTS || parsed.cents > max) return `The ${name} field must not be greater than ${formatUnits(max)}.`;
  if (rule.signed === true) {
    if (parsed.cents === 0n) return `The ${name} field must not be zero.`;
    return { cents: parsed.negative === true ? -parsed.cents : parsed.cents };
  }
  if (parsed.negative === true && parsed.cents !== 0n) {
    return rule.min !== undefined && rule.min > 0n
      ? `The ${name} field must be at least ${formatUnits(rule.min)}.`
      : `The ${name} field must be at least 0.`;
  }
  const min = rule.min ?? 0n;
  if (parsed.cents < min) return `The ${name} field must be at least ${formatUnits(min)}.`;
  return { cents: parsed.cents };
}

/** A percentage 0–100 with at most two decimals, as basis points. */
export function rateProblem(field: string, value: unknown): string | { bp: bigint } {
  const name = field.replaceAll('_', ' ');
  const parsed = parseHundredths(value);
  if (!parsed.ok) {
    return parsed.reason === 'decimals' ? `The ${name} field must have 0-2 decimal places.` : `The ${name} field must be a number.`;
  }
  if (parsed.negative === true && parsed.cents !== 0n) return `The ${name} field must be at least 0.`;
  if (parsed.cents > MAX_RATE_BP) return `The ${name} field must not be greater than 100.`;
  return { bp: parsed.cents };
}

/**
 * Collects every field's problem before answering, as Laravel's validator does, so one 422
 * lists them all.
 */
export class FieldCheck {
  readonly errors: FieldErrors = {};

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  money(field: string, value: unknown, rule: MoneyRule = {}): bigint {
    const outcome = moneyProblem(field, value, rule);
    if (typeof outcome === 'string') {
      this.add(field, outcome);
      return 0n;
    }
    return outcome.cents;
  }

  rate(field: string, value: unknown): bigint {
    const outcome = rateProblem(field, value);
    if (typeof outcome === 'string') {
      this.add(field, outcome);
      return 0n;
    }
    return outcome.bp;
  }

  get failed(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  throwIfFailed(): void {
    if (this.failed) throw new ValidationError(this.errors);
  }
}

/** One money field, or a 422 on it. */
export function parseMoney(field: string, value: unknown, rule: MoneyRule = {}): bigint {
  const check = new FieldCheck();
  const cents = check.money(field, value, rule);
  check.throwIfFailed();
  return cents;
}

/** Cents as currency units for JSON: 10050n → 100.5. Exact for every amount below MAX_CENTS. */
export function toUnits(cents: bigint): number {
  return Number(formatUnits(cents));
}

/** Cents as a fixed two-decimal string for messages and BR Codes: 10050n → "100.50". */
export function formatUnits(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const text = `${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
  return negative ? `-${text}` : text;
}

/**
 * An amount as a player in Brazil reads it, on the pages we serve: `R$ 1.000,00` (Intl puts a
 * no-break space after the symbol). Written with no type annotation in its body on purpose: the
 * demo slot's page runs this very function's source in the browser, so the slot and the payment
 * page format money alike from one definition. `units` as from toUnits.
 */
export const displayMoney: (units: number, currency: string) => string = function displayMoney(units, currency) {
  return new Intl.NumberFormat('pt-BR', { style: 'currency', currency }).format(units);
};

/** Basis points as a JSON percentage: 1250n → 12.5. */
export function rateToPercent(bp: bigint): number {
  return toUnits(bp);
}

/** round-half-up(amount × rate / 100) to the cent, in integers (docs/api.md section 4). */
export function percentOf(cents: bigint, rateBp: bigint): bigint {
  const product = cents * rateBp;
  const sign = product < 0n ? -1n : 1n;
  return sign * ((sign * product + 5_000n) / 10_000n);
}

/** A database integer (string on node-postgres, number or bigint on the embedded database). */
export function toCents(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' || typeof value === 'string') return BigInt(value);
  throw new TypeError(`Not an integer amount: ${String(value)}`);
}
