import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import type { RowOf } from '../../platform/pagination/list.ts';
import { withdrawals } from './tables.ts';

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
  created_at: withdrawals.createdAt,
  updated_at: withdrawals.updatedAt,
};

export type WithdrawalRow = RowOf<typeof withdrawalFields>;

/** A withdrawals row as `to_json` writes it: column names, BIGINTs as numbers, timestamps as text. */
export type WithdrawalJson = Record<string, unknown>;

const INSTANTS = new Set(['reviewed_at', 'paid_at', 'created_at', 'updated_at']);
const CENTS = new Set(['amount', 'fee']);

/**
 * The row `request_withdrawal` answers, as the selection reads it. Cents fit a JSON number
 * exactly (they are below 2^53), and become bigints again before any arithmetic.
 */
export function withdrawalFromJson(json: WithdrawalJson | string): WithdrawalRow {
  const source = (typeof json === 'string' ? JSON.parse(json) : json) as WithdrawalJson;
  const row: Record<string, unknown> = {};
  for (const field of Object.keys(withdrawalFields)) {
    const value = source[field];
    if (value === null || value === undefined) row[field] = null;
    else if (CENTS.has(field)) row[field] = BigInt(value as number | string);
    else if (INSTANTS.has(field)) row[field] = new Date(value as string);
    else row[field] = value;
  }
  // Built field by field from the selection's own keys.
  return row as WithdrawalRow;
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

const p = (name: string) => sql.placeholder(name);

/** The columns `request_withdrawal` answers; BIGINTs read as text on both drivers. */
const requestOutcome = {
  outcome: sql<string>`outcome`,
  withdrawalId: sql<string | null>`withdrawal_id`,
  minRequired: sql<string | null>`min_required`,
  betRequired: sql<string | null>`bet_required`,
  betCurrent: sql<string | null>`bet_current`,
  referredRequired: sql<string | null>`referred_required`,
  referredCurrent: sql<string | null>`referred_current`,
  toppedUpRequired: sql<string | null>`topped_up_required`,
  toppedUpCurrent: sql<string | null>`topped_up_current`,
  withdrawal: sql<WithdrawalJson | string | null>`withdrawal`,
};

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

export interface TransitionInput {
  id: number;
  action: WithdrawalAction;
  /** The admin; null for a gateway notification (then `gateway` must be the withdrawal's payout gateway). */
  actorId: number | null;
  reason: string | null;
  /** The payout gateway: recorded by approve, required to match for a gateway's notification. */
  gateway: string | null;
}

export type TransitionOutcome = { outcome: 'done' | 'conflict'; status: number } | { outcome: 'unknown' };

/** `withdrawal_transition`: the exactly-once status change and, for reject and fail, the refund line. */
export async function transitionWithdrawal(db: Db, input: TransitionInput): Promise<TransitionOutcome> {
  const [row] = await db.select({ outcome: sql<string>`outcome`, status: sql<number | null>`status` }).from(
    sql`withdrawal_transition(${input.id}::bigint, ${input.action}::text, ${input.actorId}::bigint, ${input.reason}::text,
        ${input.gateway}::text)`,
  );
  if (row!.outcome === 'unknown') return { outcome: 'unknown' };
  return { outcome: row!.outcome === 'done' ? 'done' : 'conflict', status: Number(row!.status) };
}
