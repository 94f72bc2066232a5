import type { Clock } from '../../platform/clock.ts';
import type { AppContext } from '../../platform/context.ts';
import { transaction, type Db } from '../../platform/db/client.ts';
import { ConflictError } from '../../platform/errors.ts';
import { FieldCheck } from '../../platform/money.ts';
import type { SessionEndRule } from '../../platform/session/store.ts';
import { shortenGameSessions } from '../games/launch/session-end.ts';
import { refusalError } from './messages.ts';
import {
  currentExclusion,
  depositRefusal,
  endGameSessions,
  insertExclusion,
  limitRows,
  lockPlayer,
  playRefusal,
  writeLimit,
  type LimitRow,
  type LimitState,
} from './repository.ts';
import { sessionEndOf } from './session-time.ts';
import { LIMIT_FIELDS, type LimitField } from './tables.ts';

/** A raise or a removal waits this long (docs/api.md section 14). */
export const RAISE_DELAY_MS = 24 * 3600_000;
export const SESSION_MINUTES_MAX = 1440;

export const EXCLUSION_PERIODS = ['24h', '1w', '1m', '3m', '6m', '1y', 'permanent'] as const;
export type ExclusionPeriod = (typeof EXCLUSION_PERIODS)[number];

export interface LimitsView {
  values: Record<LimitField, bigint | null>;
  pending: Array<{ field: LimitField; value: bigint | null; effectiveAt: Date }>;
}

/** A change still waiting for its time (none when its time has come: it is the limit in force). */
function waiting(row: LimitState | undefined): LimitState | undefined {
  return row !== undefined && row.pendingAt !== null && !row.pendingInForce ? row : undefined;
}

/** The end of a self-exclusion of `period` from `now`; null: permanent. Months are calendar months (UTC). */
export function exclusionEnd(period: ExclusionPeriod, now: Date): Date | null {
  const end = new Date(now);
  switch (period) {
    case '24h':
      return new Date(now.getTime() + 24 * 3600_000);
    case '1w':
      return new Date(now.getTime() + 7 * 24 * 3600_000);
    case '1m':
    case '3m':
    case '6m':
      end.setUTCMonth(end.getUTCMonth() + Number(period[0]));
      return end;
    case '1y':
      end.setUTCFullYear(end.getUTCFullYear() + 1);
      return end;
    case 'permanent':
      return null;
  }
}

/**
 * Responsible gambling (docs/api.md section 14, docs/regulation.md): the player's limits and
 * self-exclusion, and the checks of the paths that take money in or start play. The stake checks
 * themselves live in SQL where the balance is checked (responsible_gambling_refusal); the top-up
 * check in deposit_limit_refusal, in the transaction that writes the top-up.
 */
export class ResponsibleGambling {
  readonly #ctx: AppContext;
  readonly #clock: Clock;

  constructor(ctx: AppContext, clock: Clock) {
    this.#ctx = ctx;
    this.#clock = clock;
  }

  get clock(): Clock {
    return this.#clock;
  }

  get regulated(): boolean {
    return this.#ctx.config.regulation === 'br';
  }

  async limits(userId: number, db: Db = this.#ctx.db): Promise<LimitsView> {
    const now = this.#clock.now();
    const rows = new Map((await limitRows(db, userId, now)).map((row) => [row.field, row]));
    const values = Object.fromEntries(LIMIT_FIELDS.map((field) => [field, rows.get(field)?.inForce ?? null])) as LimitsView['values'];
    const pending = [...rows.values()]
      .filter((row) => waiting(row) !== undefined)
      .map((row) => ({ field: row.field, value: row.pendingValue, effectiveAt: row.pendingAt! }));
    return { values, pending: pending.sort((a, b) => LIMIT_FIELDS.indexOf(a.field) - LIMIT_FIELDS.indexOf(b.field)) };
  }

  /**
   * A partial update: a new or lower limit applies at once (and drops a pending raise of it); a
   * higher one or a removal (null) waits RAISE_DELAY_MS, shown in `pending`. REGULATION=br: a
   * session time that applies at once ends the player's sessions in progress that many minutes
   * after their sign-in, and their game sessions with them (docs/regulation.md, "Session time").
   */
  async update(userId: number, body: Record<string, unknown>): Promise<LimitsView> {
    const wanted = parseLimits(body);
    const timed = this.regulated && wanted.has('session_minutes');
    const { view, endOf } = await transaction(this.#ctx.db, async (tx) => {
      await lockPlayer(tx, userId);
      const now = this.#clock.now();
      const rows = new Map((await limitRows(tx, userId, now, true)).map((row) => [row.field, row]));
      let sessionRow: LimitRow | undefined = rows.get('session_minutes');
      for (const [field, value] of wanted) {
        const row = rows.get(field);
        const current = row?.inForce ?? null;
        const change = waiting(row);
        let next: LimitRow;
        if (value === current || current === null || (value !== null && value < current)) {
          next = { field, value, pendingValue: null, pendingAt: null };
        } else if (change !== undefined && change.pendingValue === value) {
          next = { field, value: current, pendingValue: value, pendingAt: change.pendingAt };
        } else {
          next = { field, value: current, pendingValue: value, pendingAt: new Date(now.getTime() + RAISE_DELAY_MS) };
        }
        await writeLimit(tx, userId, next);
        if (field === 'session_minutes') sessionRow = next;
      }
      const endOf = timed ? sessionEndRule(sessionRow, now) : undefined;
      if (endOf !== undefined) await shortenGameSessions(tx, userId, endOf, now);
      return { view: await this.limits(userId, tx), endOf };
    });
    // Once committed, as a self-exclusion ends them: the sessions on every instance.
    if (endOf !== undefined) await this.#ctx.sessions.shortenSessions(userId, endOf);
    return view;
  }

  /**
   * A self-exclusion of `period` (the route confirmed the password). One that would end earlier
   * than the one in force is 409: it can be extended, never shortened or lifted. The player's live
   * game sessions end with it, and once committed every session of theirs on every instance,
   * and their remember-me cookies (sign-in stays possible, to withdraw).
   */
  async selfExclude(userId: number, period: ExclusionPeriod): Promise<{ until: Date | null }> {
    const until = await transaction(this.#ctx.db, async (tx) => {
      await lockPlayer(tx, userId);
      const now = this.#clock.now();
      const end = exclusionEnd(period, now);
      const current = await currentExclusion(tx, userId, now);
      if (current !== undefined && (current.until === null || (end !== null && end < current.until))) {
        throw new ConflictError(
          'Your account is already self-excluded until a later date; an exclusion cannot be shortened.',
          'exclusion_shorter',
        );
      }
      await insertExclusion(tx, userId, end);
      await endGameSessions(tx, userId);
      return end;
    });
    await this.#ctx.identity.cycleRememberNonce(this.#ctx.db, userId);
    await this.#ctx.sessions.store.destroyForUser(userId);
    return { until };
  }

  /**
   * REGULATION=br: when a session signed in at `signedInAt` ends (session_minutes after it, by the
   * limit in force then: src/modules/limits/session-time.ts); null under `none` or without one.
   * The session manager asks at every sign-in.
   */
  async sessionEnd(userId: number, signedInAt: Date): Promise<Date | null> {
    if (!this.regulated) return null;
    const [row] = (await limitRows(this.#ctx.db, userId, signedInAt)).filter((row) => row.field === 'session_minutes');
    return sessionEndOf(row, signedInAt);
  }

  /** REGULATION=br: a top-up or a launch of a self-excluded or listed player, or one without limits, is refused. */
  async assertMayPlay(userId: number): Promise<void> {
    if (!this.regulated) return;
    const refusal = await playRefusal(this.#ctx.db, userId, this.#clock.now());
    if (refusal !== undefined) throw refusalError(refusal, 'top-up');
  }

  /** REGULATION=br, in the transaction that writes a new top-up: 422 on `amount` past a deposit limit. */
  async assertDepositFits(tx: Db, userId: number, amount: bigint): Promise<void> {
    if (!this.regulated) return;
    const refusal = await depositRefusal(tx, userId, amount, this.#clock.now());
    if (refusal !== undefined) throw refusalError(refusal, 'top-up');
  }
}

/**
 * The end of each session of the player under `row`, by its sign-in; a session whose sign-in is
 * not known (stored before it was recorded) ends at `now` if a session signed in then would end at all.
 */
function sessionEndRule(row: LimitRow | undefined, now: Date): SessionEndRule {
  return (signedInAt) => (signedInAt !== null ? sessionEndOf(row, signedInAt) : sessionEndOf(row, now) === null ? null : now);
}

/** The PUT's fields (others are ignored): money in units ≥ 0.01, session_minutes 1–1440, or null. */
function parseLimits(body: Record<string, unknown>): Map<LimitField, bigint | null> {
  const check = new FieldCheck();
  const wanted = new Map<LimitField, bigint | null>();
  for (const field of LIMIT_FIELDS) {
    if (!(field in body)) continue;
    const raw = body[field];
    if (raw === null) {
      wanted.set(field, null);
    } else if (field === 'session_minutes') {
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > SESSION_MINUTES_MAX) {
        check.add(field, `The session minutes field must be an integer between 1 and ${SESSION_MINUTES_MAX}.`);
      } else {
        wanted.set(field, BigInt(raw));
      }
    } else {
      wanted.set(field, check.money(field, raw, { min: 1n }));
    }
  }
  check.throwIfFailed();
  return wanted;
}
