import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { outcomeColumn, resultColumn } from '../../../platform/db/function-calls.ts';
import { PROVIDER_BET_STATUS, PROVIDER_WIN_HOLD_STATUS, providerWinHolds, type ProviderWinHold } from '../seamless-wallet/tables.ts';

/**
 * What provider_wallet_win_review (db/functions/) answers: 'released' (credited once), 'refused',
 * 'decided' (reviewed before: nothing changed), 'bet_refunded' (the stake came back since:
 * nothing changed), 'unknown' (no such hold).
 */
export const PROVIDER_WIN_REVIEW_OUTCOMES = ['released', 'refused', 'decided', 'bet_refunded', 'unknown'] as const;
export type ReviewOutcome = (typeof PROVIDER_WIN_REVIEW_OUTCOMES)[number];

export interface ReviewInput {
  id: number;
  release: boolean;
  reviewerId: number;
  reason: string | null;
}

export interface Reviewed {
  outcome: ReviewOutcome;
  /** The hold's status after the call (null: no such hold). */
  status: number | null;
}

const code = (value: number) => sql`${value}::smallint`;

/** Releases or refuses a held win in the caller's transaction (the operator's logged one). */
export async function reviewHeldWin(db: Db, input: ReviewInput): Promise<Reviewed> {
  const [row] = await db
    .select({
      outcome: outcomeColumn('provider_wallet_win_review', PROVIDER_WIN_REVIEW_OUTCOMES),
      status: resultColumn('review_status', providerWinHolds.status),
    })
    .from(
      sql`provider_wallet_win_review(${input.id}::bigint, ${input.release}::boolean, ${input.reviewerId}::bigint, ${input.reason}::text,
        ${code(PROVIDER_WIN_HOLD_STATUS.held)}, ${code(PROVIDER_WIN_HOLD_STATUS.released)}, ${code(PROVIDER_WIN_HOLD_STATUS.refused)},
        ${code(PROVIDER_BET_STATUS.open)}, ${code(PROVIDER_BET_STATUS.settled)})`,
    );
  return { outcome: row!.outcome, status: row!.status };
}

export async function findHeldWin(db: Db, id: number): Promise<ProviderWinHold | undefined> {
  const [row] = await db.select().from(providerWinHolds).where(eq(providerWinHolds.id, id));
  return row;
}
