import { Type, type TSchema } from 'typebox';
import { FieldCheck, rateToPercent, toUnits } from '../../platform/money.ts';

/**
 * The settings of docs/api.md section 10. Stored as JSON in minor units: money in cents, rates
 * in basis points, counts as integers, so a stored version reads back exactly. `games.max_win`
 * is read by the SQL that applies it (db/functions/provider_wallet_win.sql, docs/games.md "Held
 * wins"), in the statement of each win, so a new version holds from the next win on.
 */
export const SETTING_NAMES = ['referral', 'topup', 'withdraw', 'games'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

type Kind = 'money' | 'rate' | 'count' | 'options';

const FIELDS: Record<SettingName, Record<string, Kind>> = {
  referral: { bonus: 'money', topped_up_bonus: 'money', topped_up_bonus_rate: 'rate' },
  topup: { gift_rate_first_time: 'rate', gift_rate: 'rate', options: 'options' },
  withdraw: {
    min_amount_for_player: 'money',
    min_amount_for_partner: 'money',
    fee_rate: 'rate',
    total_bet: 'money',
    referred_users_count: 'count',
    total_topped_up: 'money',
  },
  games: { max_win: 'money' },
};

const MAX_COUNT = 1_000_000_000;
const MAX_OPTIONS = 50;

export type StoredOption = { value: number; rate: number };
export type StoredSettings = Record<string, number | StoredOption[]>;

export interface ReferralSettings {
  bonus: bigint;
  toppedUpBonus: bigint;
  toppedUpBonusRate: bigint;
}

export interface TopupOption {
  value: bigint;
  rate: bigint;
}

export interface TopupSettings {
  giftRateFirstTime: bigint;
  giftRate: bigint;
  options: TopupOption[];
}

export interface WithdrawSettings {
  minAmountForPlayer: bigint;
  minAmountForPartner: bigint;
  feeRate: bigint;
  totalBet: bigint;
  referredUsersCount: number;
  totalToppedUp: bigint;
}

const Amount = Type.Union([Type.Number(), Type.String()], { description: 'Currency units, at most 2 decimals, ≥ 0.' });
const Rate = Type.Union([Type.Number(), Type.String()], { description: 'Percent 0–100, at most 2 decimals.' });
const Count = Type.Union([Type.Number(), Type.String()], { description: 'Integer ≥ 0.' });
const Option = Type.Object({ value: Amount, rate: Rate });

function bodyProperty(kind: Kind): TSchema {
  switch (kind) {
    case 'money':
      return Amount;
    case 'rate':
      return Rate;
    case 'count':
      return Count;
    case 'options':
      return Type.Array(Option, { maxItems: MAX_OPTIONS });
  }
}

function recordProperty(kind: Kind): TSchema {
  switch (kind) {
    case 'money':
    case 'rate':
      return Type.Number();
    case 'count':
      return Type.Integer();
    case 'options':
      return Type.Array(Type.Object({ value: Type.Number(), rate: Type.Number() }));
  }
}

/** PUT body: every field required (PUT replaces the whole set). */
export function settingsBody(name: SettingName) {
  // Built from FIELDS, so its static type is spelled out here; parseSettings checks every value.
  return Type.Unsafe<Record<string, unknown>>(
    Type.Object(Object.fromEntries(Object.entries(FIELDS[name]).map(([field, kind]) => [field, bodyProperty(kind)]))),
  );
}

export function settingsRecord(name: SettingName): TSchema {
  return Type.Object(Object.fromEntries(Object.entries(FIELDS[name]).map(([field, kind]) => [field, recordProperty(kind)])));
}

function count(check: FieldCheck, field: string, value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d+$/.test(text)) {
    check.add(
      field,
      /^-\d+$/.test(text)
        ? `The ${field.replaceAll('_', ' ')} field must be at least 0.`
        : `The ${field.replaceAll('_', ' ')} field must be an integer.`,
    );
    return 0;
  }
  if (Number(text) > MAX_COUNT) {
    check.add(field, `The ${field.replaceAll('_', ' ')} field must not be greater than ${MAX_COUNT}.`);
    return 0;
  }
  return Number(text);
}

function options(check: FieldCheck, value: unknown): StoredOption[] {
  const list = Array.isArray(value) ? (value as Record<string, unknown>[]) : [];
  const seen = new Set<bigint>();
  return list.map((item, index) => {
    const cents = check.money(`options.${index}.value`, item.value, { min: 1n });
    const rate = check.rate(`options.${index}.rate`, item.rate);
    if (cents > 0n && seen.has(cents)) check.add(`options.${index}.value`, `The options.${index}.value field has a duplicate value.`);
    seen.add(cents);
    return { value: Number(cents), rate: Number(rate) };
  });
}

/** Validates a PUT body (all problems at once) into the stored form; 422 on any problem. */
export function parseSettings(name: SettingName, body: Record<string, unknown>): StoredSettings {
  const check = new FieldCheck();
  const stored: StoredSettings = {};
  for (const [field, kind] of Object.entries(FIELDS[name])) {
    const value = body[field];
    if (kind === 'money') stored[field] = Number(check.money(field, value));
    else if (kind === 'rate') stored[field] = Number(check.rate(field, value));
    else if (kind === 'count') stored[field] = count(check, field, value);
    else stored[field] = options(check, value);
  }
  check.throwIfFailed();
  return stored;
}

function storedNumber(stored: StoredSettings, field: string): bigint {
  const value = stored[field];
  return typeof value === 'number' ? BigInt(value) : 0n;
}

function storedOptions(stored: StoredSettings): TopupOption[] {
  const value = stored.options;
  return Array.isArray(value) ? value.map((option) => ({ value: BigInt(option.value), rate: BigInt(option.rate) })) : [];
}

/** The stored form as the API shows it: units and percents. */
export function presentSettings(name: SettingName, stored: StoredSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(FIELDS[name])) {
    if (kind === 'money') out[field] = toUnits(storedNumber(stored, field));
    else if (kind === 'rate') out[field] = rateToPercent(storedNumber(stored, field));
    else if (kind === 'count') out[field] = Number(storedNumber(stored, field));
    else out[field] = storedOptions(stored).map((option) => ({ value: toUnits(option.value), rate: rateToPercent(option.rate) }));
  }
  return out;
}

export function referralSettings(stored: StoredSettings): ReferralSettings {
  return {
    bonus: storedNumber(stored, 'bonus'),
    toppedUpBonus: storedNumber(stored, 'topped_up_bonus'),
    toppedUpBonusRate: storedNumber(stored, 'topped_up_bonus_rate'),
  };
}

export function topupSettings(stored: StoredSettings): TopupSettings {
  return {
    giftRateFirstTime: storedNumber(stored, 'gift_rate_first_time'),
    giftRate: storedNumber(stored, 'gift_rate'),
    options: storedOptions(stored),
  };
}

export function withdrawSettings(stored: StoredSettings): WithdrawSettings {
  return {
    minAmountForPlayer: storedNumber(stored, 'min_amount_for_player'),
    minAmountForPartner: storedNumber(stored, 'min_amount_for_partner'),
    feeRate: storedNumber(stored, 'fee_rate'),
    totalBet: storedNumber(stored, 'total_bet'),
    referredUsersCount: Number(storedNumber(stored, 'referred_users_count')),
    totalToppedUp: storedNumber(stored, 'total_topped_up'),
  };
}
