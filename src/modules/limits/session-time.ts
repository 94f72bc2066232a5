import type { LimitRow } from './repository.ts';

const MINUTE_MS = 60_000;

/**
 * When a session signed in at `signedInAt` ends under the player's `session_minutes` row: that many
 * minutes after its sign-in, by the limit in force at that moment (db/functions/limit_in_force.sql:
 * a pending change is in force from `pendingAt` on). So a raise or a removal that comes into force
 * while the session lasts gives it the raised time (or none); one that waits past the old end
 * does not touch it. Null: no end.
 */
export function sessionEndOf(row: LimitRow | undefined, signedInAt: Date): Date | null {
  if (row === undefined) return null;
  const after = (minutes: bigint | null) => (minutes === null ? null : new Date(signedInAt.getTime() + Number(minutes) * MINUTE_MS));
  const first = after(row.value);
  if (row.pendingAt === null || (first !== null && first < row.pendingAt)) return first;
  // The pending change is in force before the first limit would end the session (or at sign-in already).
  const second = after(row.pendingValue);
  return second === null ? null : new Date(Math.max(second.getTime(), row.pendingAt.getTime()));
}
