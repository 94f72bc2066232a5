import { and, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import type { SessionEndRule } from '../../../platform/session/store.ts';
import { gameSessions } from '../tables.ts';

/**
 * The database's instant `msLeft` from now. A session's end is reckoned on the app's clock, the
 * game session's checks (provider_wallet_bet, provider_wallet_balance) on the database's: what
 * carries over is the time left, so both end together however far apart the two clocks are.
 */
export const inDatabaseTime = (msLeft: number) => sql`now() + make_interval(secs => ${msLeft / 1000})`;

/**
 * Ends the live game sessions launched from the player's session signed in at `signedInAt` (null:
 * those whose sign-in is not known) `msLeft` from now, unless they end sooner: no bet after it
 * (`ends_at`), and neither a launch token nor the session answers after it (`launch_expires_at`,
 * `expires_at`), as the protocols' expired session.
 */
export async function endGameSessions(db: Db, userId: number, signedInAt: Date | null, msLeft: number): Promise<void> {
  const which = and(
    eq(gameSessions.userId, userId),
    signedInAt === null ? isNull(gameSessions.signedInAt) : eq(gameSessions.signedInAt, signedInAt),
  );
  await endLive(db, which!, msLeft);
}

/** Ends the live game sessions `which` selects `msLeft` from now, unless they end sooner. */
async function endLive(db: Db, which: SQL, msLeft: number): Promise<void> {
  const end = inDatabaseTime(msLeft);
  await db
    .update(gameSessions)
    .set({
      endsAt: sql`least(${gameSessions.endsAt}, ${end})`,
      launchExpiresAt: sql`least(${gameSessions.launchExpiresAt}, ${end})`,
      expiresAt: sql`least(${gameSessions.expiresAt}, ${end})`,
    })
    .where(and(which, gt(gameSessions.expiresAt, sql`now()`)));
}

/**
 * A time limit came into force (session_minutes set or lowered): the player's live game sessions
 * end by what `endOf` answers for the sign-in of the session each was launched from, `now` being
 * the app's clock `endOf` reckons with. A game session launched before sign-ins were recorded
 * counts from its launch, the latest its sign-in can have been.
 */
export async function shortenGameSessions(db: Db, userId: number, endOf: SessionEndRule, now: Date): Promise<void> {
  const live = await db
    .select({
      id: gameSessions.id,
      signedInAt: gameSessions.signedInAt,
      // The launch on the app's clock: `now` less the time since it on the database's.
      launchedAgoMs: sql<number>`(extract(epoch from now() - ${gameSessions.createdAt}) * 1000)::float8`.mapWith(Number),
    })
    .from(gameSessions)
    .where(and(eq(gameSessions.userId, userId), gt(gameSessions.expiresAt, sql`now()`)));
  const byEnd = new Map<number, number[]>();
  for (const session of live) {
    const end = endOf(session.signedInAt ?? new Date(now.getTime() - session.launchedAgoMs));
    if (end === null) continue;
    const msLeft = Math.max(0, end.getTime() - now.getTime());
    byEnd.set(msLeft, [...(byEnd.get(msLeft) ?? []), session.id]);
  }
  for (const [msLeft, ids] of byEnd) await endLive(db, inArray(gameSessions.id, ids), msLeft);
}
