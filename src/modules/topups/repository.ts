import { and, eq, sql, type SQL } from 'drizzle-orm';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import { correlated } from '../../platform/db/columns.ts';
import type { Db } from '../../platform/db/client.ts';
import type { RowOf } from '../../platform/pagination/list.ts';
import { statusCodes } from '../../platform/status.ts';
import { ledgerEntries } from '../wallet/tables.ts';
import { topups } from './tables.ts';

/**
 * A top-up's statuses, declared once: 3 is stored once the PSP reported a charge unpaid past its
 * expiry, and is also how readers see a pending top-up older than 24 hours (`topupStatus`).
 */
export const TOPUP_STATUSES = statusCodes({
  pending: 'pending',
  paid: 'paid',
  cancelled: 'cancelled',
  expired: 'expired (pending for more than 24 hours, or past its charge’s expiry)',
  returned: 'returned (the money received for it was sent back to the payer; `reason` says why)',
});
export const TOPUP_STATUS = TOPUP_STATUSES.code;

/**
 * The status as every reader sees it: a pending row older than 24 hours reads as expired.
 * Expiry is derived, not stored, so no sweeper is needed and every reader agrees at every
 * instant; the rule is the database function `topup_status`, which the paid path uses too.
 */
export const topupStatus =
  sql<number>`topup_status(${topups.status}, ${topups.createdAt}, ${topupStatusCodes('pending', 'expired')})`.mapWith(Number);

/** Status codes as SQL literals for the functions that are passed them (they are our own integers, not input). */
export function topupStatusCodes(...names: (keyof typeof TOPUP_STATUS)[]): SQL {
  return sql.raw(names.map((name) => `${Number(TOPUP_STATUS[name])}::smallint`).join(', '));
}

/**
 * A top-up record as every reader (lists, details, the paid path's answers) selects it, typed.
 * The gift is its ledger line, under the key pay_topup writes: one source of truth, and paying
 * writes no second update of the top-up.
 */
export const topupFields = {
  id: topups.id,
  public_id: topups.publicId,
  user_id: topups.userId,
  payment_method_id: topups.paymentMethodId,
  amount: topups.amount,
  gift_amount: correlated<bigint>(sql`coalesce((select ${ledgerEntries.amount} from ${ledgerEntries}
    where ${ledgerEntries.idempotencyKey} = topup_gift_key(${topups.id})), 0)`).mapWith(ledgerEntries.amount),
  currency: topups.currency,
  status: topupStatus,
  gateway: topups.gateway,
  gateway_payment_id: topups.gatewayPaymentId,
  qr_code: topups.qrCode,
  reason: topups.reason,
  paid_at: topups.paidAt,
  created_at: topups.createdAt,
  updated_at: topups.updatedAt,
};

export type TopupRow = RowOf<typeof topupFields>;

async function findWhere(db: Db, where: SQL | undefined): Promise<TopupRow | undefined> {
  const [row] = await db.select(topupFields).from(topups).where(where);
  return row;
}

export function findTopup(db: Db, id: number): Promise<TopupRow | undefined> {
  return findWhere(db, eq(topups.id, id));
}

export function findTopupByPublicId(db: Db, publicId: string): Promise<TopupRow | undefined> {
  return findWhere(db, eq(topups.publicId, publicId));
}

export function findTopupByPayment(db: Db, gateway: string, paymentId: string): Promise<TopupRow | undefined> {
  return findWhere(db, and(eq(topups.gateway, gateway), eq(topups.gatewayPaymentId, paymentId)));
}

export interface NewTopup {
  userId: number;
  paymentMethodId: number;
  amount: bigint;
  currency: string;
  gateway: string;
}

export async function insertPendingTopup(db: Db, topup: NewTopup): Promise<TopupRow> {
  const [row] = await db
    .insert(topups)
    .values({ publicId: randomAlphanumeric(24), ...topup })
    .returning({ id: topups.id });
  return (await findTopup(db, row!.id))!;
}

export async function attachCharge(db: Db, id: number, paymentId: string, qrCode: string, expiresAt: Date | undefined): Promise<void> {
  await db
    .update(topups)
    .set({ gatewayPaymentId: paymentId, qrCode, expiresAt: expiresAt ?? null, updatedAt: sql`now()` })
    .where(eq(topups.id, id));
}

/** pending → cancelled; false when the top-up was no longer pending (or had expired). */
export async function cancelPendingTopup(db: Db, id: number): Promise<boolean> {
  const cancelled = await db
    .update(topups)
    .set({ status: TOPUP_STATUS.cancelled, updatedAt: sql`now()` })
    .where(and(eq(topups.id, id), eq(topupStatus, TOPUP_STATUS.pending)))
    .returning({ id: topups.id });
  return cancelled.length > 0;
}

/**
 * pending → returned with its reason (the sandbox's payment from another payer under
 * REGULATION=br, docs/api.md section 14); false when it was no longer pending. Moves no money:
 * nothing was credited.
 */
export async function returnPendingTopup(db: Db, id: number, reason: string): Promise<boolean> {
  const returned = await db
    .update(topups)
    .set({ status: TOPUP_STATUS.returned, reason, updatedAt: sql`now()` })
    .where(and(eq(topups.id, id), eq(topups.status, TOPUP_STATUS.pending)))
    .returning({ id: topups.id });
  return returned.length > 0;
}

/** How long a pending top-up can still be paid: topup_status's 24 hours, or its charge's own expiry if sooner. */
export const PENDING_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** When the top-up stops being payable (the pay page's countdown). */
export async function topupPayableUntil(db: Db, id: number, createdAt: Date): Promise<Date> {
  const [row] = await db.select({ expiresAt: topups.expiresAt }).from(topups).where(eq(topups.id, id));
  const byAge = new Date(createdAt.getTime() + PENDING_LIFETIME_MS);
  const charge = row?.expiresAt ?? null;
  return charge !== null && charge < byAge ? charge : byAge;
}
