import { eq, sql } from 'drizzle-orm';
import { one, type Db } from '../../platform/db/client.ts';
import { toCents } from '../../platform/money.ts';
import { topupStatusCodes } from '../topups/repository.ts';
import { userLimits, type LimitField } from './tables.ts';

export interface LimitRow {
  field: LimitField;
  value: bigint | null;
  pendingValue: bigint | null;
  pendingAt: Date | null;
}

/** A limit row as read at an instant: what is in force then, by the one rule (db/functions/limit_in_force.sql). */
export interface LimitState extends LimitRow {
  inForce: bigint | null;
  /** The pending change's time has come (then `inForce` is its value). */
  pendingInForce: boolean;
}

/** The player's limit rows at `now`; locked for the rest of the transaction when `lock`. */
export async function limitRows(db: Db, userId: number, now: Date, lock = false): Promise<LimitState[]> {
  const query = db
    .select({
      field: userLimits.field,
      value: userLimits.value,
      pendingValue: userLimits.pendingValue,
      pendingAt: userLimits.pendingAt,
      inForce: sql`limit_in_force(${userLimits.value}, ${userLimits.pendingValue}, ${userLimits.pendingAt}, ${now}::timestamptz)`.mapWith(
        userLimits.value,
      ),
      pendingInForce: sql<boolean>`limit_in_force(false, true, ${userLimits.pendingAt}, ${now}::timestamptz)`,
    })
    .from(userLimits)
    .where(eq(userLimits.userId, userId));
  return lock ? query.for('update') : query;
}

export async function writeLimit(tx: Db, userId: number, row: LimitRow): Promise<void> {
  const values = { value: row.value, pendingValue: row.pendingValue, pendingAt: row.pendingAt, updatedAt: sql`now()` };
  await tx
    .insert(userLimits)
    .values({ userId, field: row.field, ...values })
    .onConflictDoUpdate({ target: [userLimits.userId, userLimits.field], set: values });
}

/** Serializes a player's limit changes: the row of the user, locked. */
export async function lockPlayer(tx: Db, userId: number): Promise<void> {
  await tx.execute(sql`select 1 from users where id = ${userId} for update`);
}

export type RefusalReason = 'self_excluded' | 'listed' | 'limits_unset' | 'loss_limit';

export interface Refusal {
  reason: RefusalReason;
  period: 'daily' | 'weekly' | 'monthly' | null;
  limitCents: bigint | null;
  leftCents: bigint | null;
  until: Date | null;
}

interface RefusalRecord {
  reason: RefusalReason | null;
  period: Refusal['period'];
  limit_cents: unknown;
  left_cents: unknown;
  until: string | Date | null;
}

/** Reads what responsible_gambling_refusal (db/functions) answers into a Refusal; undefined when none. */
export function refusalOf(row: {
  reason: RefusalReason | null;
  period: Refusal['period'];
  limitCents: unknown;
  leftCents: unknown;
  until: string | Date | null;
}): Refusal | undefined {
  if (row.reason === null) return undefined;
  return {
    reason: row.reason,
    period: row.period,
    limitCents: row.limitCents == null ? null : toCents(row.limitCents),
    leftCents: row.leftCents == null ? null : toCents(row.leftCents),
    until: row.until == null ? null : new Date(row.until),
  };
}

/** responsible_gambling_refusal without a stake: may the player top up or launch at all? */
export async function playRefusal(db: Db, userId: number, now: Date): Promise<Refusal | undefined> {
  const row = await one<RefusalRecord>(
    db,
    sql`select reason, period, limit_cents, left_cents, until
      from responsible_gambling_refusal(${userId}::bigint, null::bigint, ${now}::timestamptz, null::balances)`,
  );
  return refusalOf({ ...row!, limitCents: row!.limit_cents, leftCents: row!.left_cents });
}

/** deposit_limit_refusal (db/functions): the window a new top-up of `amount` would exceed, if any. */
export async function depositRefusal(tx: Db, userId: number, amount: bigint, now: Date): Promise<Refusal | undefined> {
  const row = await one<{ period: Refusal['period']; limit_cents: unknown; left_cents: unknown }>(
    tx,
    sql`select period, limit_cents, left_cents from deposit_limit_refusal(${userId}::bigint, ${amount}::bigint, ${now}::timestamptz,
      ${topupStatusCodes('pending', 'paid', 'expired')})`,
  );
  if (row?.period == null) return undefined;
  return refusalOf({ reason: 'loss_limit', period: row.period, limitCents: row.limit_cents, leftCents: row.left_cents, until: null });
}

/** The end of the player's current self-exclusion (null: permanent), or undefined when none. */
export async function currentExclusion(db: Db, userId: number, now: Date): Promise<{ until: Date | null } | undefined> {
  const row = await one<{ until: string | Date | null }>(
    db,
    sql`select until from self_exclusions where user_id = ${userId} and (permanent or until > ${now}::timestamptz)
      order by permanent desc, until desc limit 1`,
  );
  return row === undefined ? undefined : { until: row.until === null ? null : new Date(row.until) };
}

export async function insertExclusion(tx: Db, userId: number, until: Date | null): Promise<void> {
  await tx.execute(
    sql`insert into self_exclusions (user_id, until, permanent) values (${userId}, ${until}::timestamptz, ${until === null})`,
  );
}

/** Ends the player's live game sessions now: nothing opened before the exclusion takes a bet. */
export async function endGameSessions(tx: Db, userId: number): Promise<void> {
  await tx.execute(sql`update game_sessions set expires_at = now() where user_id = ${userId} and expires_at > now()`);
}
