import { and, asc, eq, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { outcomeColumn, resultColumn, rowFromJson, smallints } from '../../platform/db/function-calls.ts';
import type { RowOf } from '../../platform/pagination/list.ts';
import { reviewField } from './admin-view.ts';
import { WITHDRAWAL_STATUS, withdrawals, type PayoutState } from './tables.ts';

/** A withdrawal as every reader selects it. */
export const withdrawalFields = {
  id: withdrawals.id,
  public_id: withdrawals.publicId,
  user_id: withdrawals.userId,
  payee_name: withdrawals.payeeName,
  account_type: withdrawals.accountType,
  payee_account: withdrawals.payeeAccount,
  amount: withdrawals.amount,
  fee: withdrawals.fee,
  currency: withdrawals.currency,
  status: withdrawals.status,
  reason: withdrawals.reason,
  reviewed_by: withdrawals.reviewedBy,
  reviewed_at: withdrawals.reviewedAt,
  paid_at: withdrawals.paidAt,
  payout_gateway: withdrawals.payoutGateway,
  payout_id: withdrawals.payoutId,
  payout_method_id: withdrawals.payoutMethodId,
  payout_state: withdrawals.payoutState,
  payout_detail: withdrawals.payoutDetail,
  created_at: withdrawals.createdAt,
  updated_at: withdrawals.updatedAt,
};

export type WithdrawalRow = RowOf<typeof withdrawalFields>;

/** A withdrawal as operators read it: with what a reviewer decides by (admin-view.ts). */
export const adminWithdrawalFields = { ...withdrawalFields, ...reviewField };

export type AdminWithdrawalRow = RowOf<typeof adminWithdrawalFields>;

export async function findAdminWithdrawal(db: Db, id: number): Promise<AdminWithdrawalRow | undefined> {
  const [row] = await db.select(adminWithdrawalFields).from(withdrawals).where(eq(withdrawals.id, id));
  return row;
}

export async function findWithdrawal(db: Db, id: number): Promise<WithdrawalRow | undefined> {
  const [row] = await db.select(withdrawalFields).from(withdrawals).where(eq(withdrawals.id, id));
  return row;
}

/** The withdrawal a payout gateway knows by `reference`, whichever gateway (if any) it was sent to. */
export async function findWithdrawalByReference(db: Db, reference: string): Promise<WithdrawalRow | undefined> {
  const [row] = await db.select(withdrawalFields).from(withdrawals).where(eq(withdrawals.publicId, reference));
  return row;
}

/** The gateway's id of the payout, once it answered; the first answer stays. */
export async function attachPayout(db: Db, id: number, payoutId: string): Promise<void> {
  await db
    .update(withdrawals)
    .set({ payoutId, updatedAt: sql`now()` })
    .where(and(eq(withdrawals.id, id), isNull(withdrawals.payoutId)));
}

/** The method whose PSP pays an approval out: written in the approval's transaction. */
export async function setPayoutMethod(tx: Db, id: number, paymentMethodId: number): Promise<void> {
  await tx.update(withdrawals).set({ payoutMethodId: paymentMethodId }).where(eq(withdrawals.id, id));
}

/**
 * What a payout request (or a look at the PSP) came to: its state and the gateway's words, and
 * whether reconciliation looked now. Only an approved withdrawal's record moves, so a late
 * answer never rewrites one that reached its end.
 */
export async function recordPayout(
  db: Db,
  id: number,
  record: { state?: PayoutState; detail?: string | null; checkedAt?: Date },
): Promise<void> {
  await db
    .update(withdrawals)
    .set({
      ...(record.state === undefined ? {} : { payoutState: record.state }),
      ...(record.detail === undefined ? {} : { payoutDetail: record.detail?.slice(0, 500) ?? null }),
      ...(record.checkedAt === undefined ? {} : { payoutCheckedAt: record.checkedAt }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(withdrawals.id, id), eq(withdrawals.status, WITHDRAWAL_STATUS.approved)));
}

/**
 * Approved withdrawals of these gateways approved at or before `approvedBefore`, the least
 * recently checked first: what reconciliation asks the PSP about.
 */
export async function payoutsToReconcile(db: Db, gateways: string[], approvedBefore: Date, limit: number): Promise<WithdrawalRow[]> {
  if (gateways.length === 0) return [];
  return db
    .select(withdrawalFields)
    .from(withdrawals)
    .where(
      and(
        eq(withdrawals.status, WITHDRAWAL_STATUS.approved),
        sql`${withdrawals.payoutMethodId} is not null`,
        inArray(withdrawals.payoutGateway, gateways),
        lte(withdrawals.reviewedAt, approvedBefore),
      ),
    )
    .orderBy(sql`${withdrawals.payoutCheckedAt} asc nulls first`, asc(withdrawals.reviewedAt))
    .limit(limit);
}

const p = (name: string) => sql.placeholder(name);

/**
 * What `request_withdrawal` answers (db/functions/request_withdrawal.sql): 'created' and
 * 'replayed' with the withdrawal; 'key_reused', 'stale' (settings replaced: compute again) and
 * 'refused' (with the limits unmet) move nothing.
 */
export const REQUEST_WITHDRAWAL_OUTCOMES = ['created', 'replayed', 'key_reused', 'stale', 'refused'] as const;

/** `request_withdrawal`'s row: limits in cents, counts of users, and the withdrawal as every reader selects it. */
const requestOutcome = {
  outcome: outcomeColumn('request_withdrawal', REQUEST_WITHDRAWAL_OUTCOMES),
  withdrawalId: resultColumn('withdrawal_id', withdrawals.id),
  minRequired: resultColumn('min_required', withdrawals.amount),
  betRequired: resultColumn('bet_required', withdrawals.amount),
  betCurrent: resultColumn('bet_current', withdrawals.amount),
  referredRequired: resultColumn('referred_required', withdrawals.id),
  referredCurrent: resultColumn('referred_current', withdrawals.id),
  toppedUpRequired: resultColumn('topped_up_required', withdrawals.amount),
  toppedUpCurrent: resultColumn('topped_up_current', withdrawals.amount),
  withdrawal: sql`withdrawal`.mapWith((json: unknown) => rowFromJson(withdrawalFields, json)) as SQL<WithdrawalRow | null>,
};

export type RequestOutcomeRow = RowOf<typeof requestOutcome>;

/**
 * `request_withdrawal` (db/functions/request_withdrawal.sql) as a named prepared
 * statement: one round trip per request, parsed once per connection.
 */
export function prepareRequestWithdrawal(db: Db) {
  return db
    .select(requestOutcome)
    .from(
      sql`request_withdrawal(${p('userId')}::bigint, ${p('currency')}::text, ${p('payeeName')}::text, ${p('accountType')}::text,
        ${p('payeeAccount')}::text, ${p('amount')}::bigint, ${p('fee')}::bigint, ${p('settingsId')}::bigint,
        ${p('minForPlayer')}::bigint, ${p('minForPartner')}::bigint, ${p('totalBet')}::bigint, ${p('referredUsers')}::bigint,
        ${p('totalToppedUp')}::bigint, ${p('requestKey')}::text, ${p('requestDigest')}::text)`,
    )
    .prepare('request_withdrawal');
}

export type RequestWithdrawalStatement = ReturnType<typeof prepareRequestWithdrawal>;

export type WithdrawalAction = 'approve' | 'reject' | 'complete' | 'fail';

const S = WITHDRAWAL_STATUS;

/**
 * docs/api.md section 8: the statuses each action moves a withdrawal from, and the one it reaches.
 * `withdrawal_transition` is passed these codes; what an action does besides (the refund of
 * reject and fail, the payout gateway approve records) is the function's.
 */
export const WITHDRAWAL_TRANSITIONS: Record<WithdrawalAction, { from: readonly number[]; to: number }> = {
  approve: { from: [S.pending], to: S.approved },
  reject: { from: [S.pending, S.approved], to: S.rejected },
  complete: { from: [S.approved], to: S.paid },
  fail: { from: [S.approved], to: S.failed },
};

export interface TransitionInput {
  id: number;
  action: WithdrawalAction;
  /** The admin; null for a gateway notification (then `gateway` must be the withdrawal's payout gateway). */
  actorId: number | null;
  reason: string | null;
  /** The payout gateway: recorded by approve, required to match for a gateway's notification. */
  gateway: string | null;
  /**
   * The payout gateways whose PSP alone settles an approved withdrawal (pspSettledGateways,
   * payouts.ts): an admin's action on one of theirs answers 'psp_settles'. Irrelevant for a gateway.
   */
  pspGateways: readonly string[];
}

/**
 * 'done' (status: the new one), 'conflict' (nothing changed; status: the current one),
 * 'psp_settles' (nothing changed: the payout is at the PSP, whose outcome alone settles it), 'unknown'.
 */
export const WITHDRAWAL_TRANSITION_OUTCOMES = ['done', 'conflict', 'psp_settles', 'unknown'] as const;

export type TransitionOutcome = { outcome: 'done' | 'conflict' | 'psp_settles'; status: number } | { outcome: 'unknown' };

/**
 * `withdrawal_transition`: the exactly-once status change and, for reject and fail, the refund
 * line; an admin's action on a payout a PSP holds changes nothing.
 */
export async function transitionWithdrawal(db: Db, input: TransitionInput): Promise<TransitionOutcome> {
  const { from, to } = WITHDRAWAL_TRANSITIONS[input.action];
  const [row] = await db
    .select({
      outcome: outcomeColumn('withdrawal_transition', WITHDRAWAL_TRANSITION_OUTCOMES),
      status: resultColumn('status', withdrawals.status),
    })
    .from(
      sql`withdrawal_transition(${input.id}::bigint, ${input.action}::text, ${smallints(from)}, ${to}::smallint,
        ${input.actorId}::bigint, ${input.reason}::text, ${input.gateway}::text, ${sql.param([...input.pspGateways])}::text[])`,
    );
  const { outcome, status } = row!;
  return outcome === 'unknown' ? { outcome } : { outcome, status: status! };
}
