import { WalletCallRefused, type CallRefusal, type WalletStatus } from '../adapters/adapter.ts';

/**
 * Hub88's Operator Wallet API as it is written on the wire (docs.hub88.io, "Wallet API" and
 * "Seamless Wallet response statuses"; docs/games.md, "Connecting a Hub88 operator account").
 */

/**
 * Money: integers (Int64) of the currency unit multiplied by 100,000 ($3.56 is 356000). Our
 * cents are 1,000 of them; an amount that is not a whole number of cents cannot be held here.
 */
export const UNITS_PER_CENT = 1000n;

/** Every status Hub88's operator Wallet API defines. */
export const RS = {
  OK: 'RS_OK',
  UNKNOWN: 'RS_ERROR_UNKNOWN',
  INVALID_PARTNER: 'RS_ERROR_INVALID_PARTNER',
  INVALID_TOKEN: 'RS_ERROR_INVALID_TOKEN',
  INVALID_GAME: 'RS_ERROR_INVALID_GAME',
  WRONG_CURRENCY: 'RS_ERROR_WRONG_CURRENCY',
  NOT_ENOUGH_MONEY: 'RS_ERROR_NOT_ENOUGH_MONEY',
  USER_DISABLED: 'RS_ERROR_USER_DISABLED',
  INVALID_SIGNATURE: 'RS_ERROR_INVALID_SIGNATURE',
  TOKEN_EXPIRED: 'RS_ERROR_TOKEN_EXPIRED',
  WRONG_SYNTAX: 'RS_ERROR_WRONG_SYNTAX',
  WRONG_TYPES: 'RS_ERROR_WRONG_TYPES',
  DUPLICATE_TRANSACTION: 'RS_ERROR_DUPLICATE_TRANSACTION',
  TRANSACTION_DOES_NOT_EXIST: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
  TRANSACTION_ROLLED_BACK: 'RS_ERROR_TRANSACTION_ROLLED_BACK',
  LIMIT_REACHED: 'RS_ERROR_LIMIT_REACHED',
  BET_LIMIT_EXCEEDED: 'RS_ERROR_BET_LIMIT_EXCEEDED',
  TIMEOUT: 'RS_ERROR_TIMEOUT',
} as const;
export type Hub88Status = (typeof RS)[keyof typeof RS];

/**
 * How each wallet outcome is worded (the mapping table of docs/games.md). Where Hub88 has no
 * status of its own for one of ours (a round another player's or already closed, the rollback
 * of a bet a win named), RS_ERROR_UNKNOWN, its "general error status, for cases without a
 * special error code".
 */
export const HUB88_STATUS: Record<WalletStatus, Hub88Status> = {
  OK: RS.OK,
  INVALID_TOKEN: RS.INVALID_TOKEN,
  TOKEN_EXPIRED: RS.TOKEN_EXPIRED,
  PLAYER_DISABLED: RS.USER_DISABLED,
  PROVIDER_DISABLED: RS.INVALID_PARTNER,
  GAME_NOT_FOUND: RS.INVALID_GAME,
  CURRENCY_MISMATCH: RS.WRONG_CURRENCY,
  INSUFFICIENT_FUNDS: RS.NOT_ENOUGH_MONEY,
  DUPLICATE_MISMATCH: RS.DUPLICATE_TRANSACTION,
  BET_NOT_FOUND: RS.TRANSACTION_DOES_NOT_EXIST,
  BET_REFUNDED: RS.TRANSACTION_ROLLED_BACK,
  BET_SETTLED: RS.UNKNOWN,
  ROUND_MISMATCH: RS.UNKNOWN,
  ROUND_CLOSED: RS.UNKNOWN,
  // REGULATION=br: a stake over the player's loss limit (docs/regulation.md).
  LIMIT_REACHED: RS.LIMIT_REACHED,
  // A win over the operator's ceiling, held for review, and one staff refused: not credited, and
  // not a verdict on the bet (TRANSACTION_DOES_NOT_EXIST would say the bet is unknown, which
  // invites a rollback). The general error keeps the win unsuccessful at Hub88, whose retries are
  // answered OK once staff release it (docs/games.md, "Held wins").
  WIN_HELD: RS.UNKNOWN,
  WIN_REFUSED: RS.UNKNOWN,
};

/** How a call refused before the wallet is worded. */
export const HUB88_REFUSAL: Record<CallRefusal, Hub88Status> = {
  INVALID_SIGNATURE: RS.INVALID_SIGNATURE,
  MALFORMED: RS.WRONG_SYNTAX,
  WRONG_TYPES: RS.WRONG_TYPES,
  REQUEST_REUSED: RS.DUPLICATE_TRANSACTION,
  UNSUPPORTED: RS.UNKNOWN,
};

/**
 * The statuses whose answers carry the balance (and its currency): a success, and the refusal
 * of a stake above it ("Please send the actual balance together with this status").
 */
export const CARRIES_BALANCE: ReadonlySet<Hub88Status> = new Set([RS.OK, RS.NOT_ENOUGH_MONEY]);

/**
 * Our players as Hub88 knows them: `player-<id>`. Hub88 asks for an id that identifies no person
 * (no name, e-mail or phone) and is at least 4 characters long; an id is neither a person's data
 * nor secret, and /user/info needs to find the player from it alone.
 */
export const hub88User = (userId: number): string => `player-${userId}`;
const USER = /^player-([1-9][0-9]{0,15})$/;

/** The player a Hub88 `user` names; 0 (no player has it) for any other string. */
export function playerOf(user: string): number {
  const match = USER.exec(user);
  const id = match === null ? 0 : Number(match[1]);
  return Number.isSafeInteger(id) ? id : 0;
}

const ID = /^[\x21-\x7e]{1,100}$/;

/**
 * Reads a Hub88 body: a missing required field is RS_ERROR_WRONG_SYNTAX ("doesn't match expected
 * request form"), a field of the wrong type or out of range RS_ERROR_WRONG_TYPES. The first
 * problem refuses the call; nothing else of it is read.
 */
export class Hub88Body {
  readonly #body: Record<string, unknown>;

  constructor(body: unknown) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new WalletCallRefused('MALFORMED', 'not a JSON object');
    this.#body = body as Record<string, unknown>;
  }

  #value(field: string, required: boolean): unknown {
    const value = Object.hasOwn(this.#body, field) ? this.#body[field] : undefined;
    if (required && (value === undefined || value === null)) throw new WalletCallRefused('MALFORMED', `${field} is missing`);
    return value ?? undefined;
  }

  /** A string of 1 to `max` characters. */
  string(field: string, max = 255): string {
    const value = this.#value(field, true);
    if (typeof value !== 'string' || value.length === 0 || value.length > max)
      throw new WalletCallRefused('WRONG_TYPES', `${field} is not a string`);
    return value;
  }

  /** An id (`transaction_uuid`, `round`…): 1 to 100 printable characters; a JSON integer is read as its decimal text. */
  id(field: string): string {
    const value = this.#value(field, true);
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text !== 'string' || !ID.test(text)) throw new WalletCallRefused('WRONG_TYPES', `${field} is not an id`);
    return text;
  }

  /** An optional boolean (absent or null: false). */
  flag(field: string): boolean {
    const value = this.#value(field, false);
    if (value === undefined) return false;
    if (typeof value !== 'boolean') throw new WalletCallRefused('WRONG_TYPES', `${field} is not a boolean`);
    return value;
  }

  /** Money: an integer of 1/100,000 of the unit, a whole number of cents, at least `minCents`; returned in cents. */
  cents(field: string, minCents: bigint): bigint {
    const value = this.#value(field, true);
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new WalletCallRefused('WRONG_TYPES', `${field} is not an integer`);
    const units = BigInt(value);
    if (units % UNITS_PER_CENT !== 0n || units / UNITS_PER_CENT < minCents) {
      throw new WalletCallRefused('WRONG_TYPES', `${field} is not a whole number of cents of at least ${minCents}`);
    }
    return units / UNITS_PER_CENT;
  }

  /** The player the call's `user` names (required in every call). */
  player(): number {
    return playerOf(this.string('user', 255));
  }
}

/** A field of a body as received, if it is a string (for echoes in answers, whatever else the body holds). */
export function echoed(body: unknown, field: string): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : undefined;
}
