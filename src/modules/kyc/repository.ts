import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { userIdentities, userIdentityHistory, type IdentityEvent, type IdentityRow, type StoredIdentityStatus } from './tables.ts';

/** A CPF is held by the user whose identity with it is pending or verified (the partial unique index). */
export const HOLDING_STATUSES: StoredIdentityStatus[] = ['pending', 'verified'];
export const CPF_HELD_CONSTRAINT = 'user_identities_cpf_held_idx';

export async function findIdentity(db: Db, userId: number, lock = false): Promise<IdentityRow | undefined> {
  const query = db.select().from(userIdentities).where(eq(userIdentities.userId, userId));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

/** Whether another user holds `cpf` (docs/api.md section 14: "The cpf has already been taken."). */
export async function cpfHeldByAnother(db: Db, cpf: string, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: userIdentities.id })
    .from(userIdentities)
    .where(and(eq(userIdentities.cpf, cpf), ne(userIdentities.userId, userId), inArray(userIdentities.status, HOLDING_STATUSES)))
    .limit(1);
  return row !== undefined;
}

export interface Submission {
  userId: number;
  cpf: string;
  fullName: string;
  birthDate: string;
  verifier: string;
}

/** The player's submission: the current row becomes pending with these values. */
export async function upsertSubmission(tx: Db, submission: Submission): Promise<IdentityRow> {
  const values = {
    cpf: submission.cpf,
    fullName: submission.fullName,
    birthDate: submission.birthDate,
    status: 'pending' as const,
    reason: null,
    verifier: submission.verifier,
    // Milliseconds, as a Date holds them: `decide` finds the submission by this instant.
    submittedAt: sql`date_trunc('milliseconds', now())`,
    verifiedAt: null,
    decidedBy: null,
    updatedAt: sql`now()`,
  };
  const [row] = await tx
    .insert(userIdentities)
    .values({ userId: submission.userId, ...values })
    .onConflictDoUpdate({ target: userIdentities.userId, set: values })
    .returning();
  return row!;
}

/**
 * A decision on the pending submission (an operator's: null `submittedAt`), or on the one sent
 * at `submittedAt` (a verifier's, so a late answer never decides a newer submission): undefined
 * when it is no longer pending.
 */
export async function decide(
  tx: Db,
  userId: number,
  submittedAt: Date | null,
  decision: { status: 'verified' } | { status: 'rejected'; reason: string },
  actorId: number | null,
): Promise<IdentityRow | undefined> {
  const [row] = await tx
    .update(userIdentities)
    .set({
      status: decision.status,
      reason: decision.status === 'rejected' ? decision.reason : null,
      verifiedAt: decision.status === 'verified' ? sql`now()` : null,
      decidedBy: actorId,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(userIdentities.userId, userId),
        eq(userIdentities.status, 'pending'),
        submittedAt === null ? undefined : eq(userIdentities.submittedAt, submittedAt),
      ),
    )
    .returning();
  return row;
}

/** Appends what happened to the identity as it now stands (the history is append-only). */
export async function appendHistory(tx: Db, row: IdentityRow, event: IdentityEvent, actorId: number | null): Promise<void> {
  await tx.insert(userIdentityHistory).values({
    userId: row.userId,
    event,
    cpf: row.cpf,
    fullName: row.fullName,
    birthDate: row.birthDate,
    status: row.status,
    reason: row.reason,
    verifier: row.verifier,
    actorId,
  });
}
