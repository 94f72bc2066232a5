import { and, asc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { TOPUP_STATUS } from '../topups/repository.ts';
import { topups } from '../topups/tables.ts';
import type { ChargedTopup } from './disposition.ts';
import { pixCheckpoints, pixPayments, type PixPaymentRow, type ReturnState } from './tables.ts';

const p = (name: string) => sql.placeholder(name);

const chargedTopupColumns = {
  id: topups.id,
  userId: topups.userId,
  amount: topups.amount,
  storedStatus: topups.status,
  paymentMethodId: topups.paymentMethodId,
};

/** The lookup a payment makes before it is decided, as a named prepared statement (parsed and planned once per connection). */
export function preparePixLookups(db: Db) {
  return {
    chargedTopup: db
      .select(chargedTopupColumns)
      .from(topups)
      .where(and(eq(topups.gateway, p('gateway')), eq(topups.gatewayPaymentId, p('txid'))))
      .prepare('pix_charged_topup'),
  };
}

export type PixLookups = ReturnType<typeof preparePixLookups>;
export type ChargedTopupRow = ChargedTopup & { paymentMethodId: number };

/** The top-up a charge's txid names, as the disposition rule reads it. */
export async function findChargedTopup(lookups: PixLookups, gateway: string, txid: string): Promise<ChargedTopupRow | undefined> {
  const [row] = await lookups.chargedTopup.execute({ gateway, txid });
  return row;
}

export async function findPixPayment(db: Db, endToEndId: string): Promise<PixPaymentRow | undefined> {
  const [row] = await db.select().from(pixPayments).where(eq(pixPayments.endToEndId, endToEndId));
  return row;
}

export async function findPixPaymentById(db: Db, id: number): Promise<PixPaymentRow | undefined> {
  const [row] = await db.select().from(pixPayments).where(eq(pixPayments.id, id));
  return row;
}

export interface ReturnUpdate {
  status: ReturnState;
  detail?: string | null;
  rtrId?: string | null;
  returnedAt?: Date | null;
}

/**
 * Moves a return to `update.status`, from one of `from` only: two callers (a notification and
 * reconciliation) who learn of the same return write it once, and a final state is never undone.
 */
export async function recordReturn(db: Db, id: number, update: ReturnUpdate, from: readonly ReturnState[]): Promise<boolean> {
  const changed = await db
    .update(pixPayments)
    .set({
      returnStatus: update.status,
      ...(update.detail === undefined ? {} : { returnDetail: update.detail?.slice(0, 500) ?? null }),
      ...(update.rtrId === undefined ? {} : { returnRtrId: update.rtrId }),
      ...(update.returnedAt === undefined ? {} : { returnedAt: update.returnedAt }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(pixPayments.id, id), inArray(pixPayments.returnStatus, [...from])))
    .returning({ id: pixPayments.id });
  return changed.length > 0;
}

/** Returns whose outcome is not final yet, oldest first. */
export function returnsDue(db: Db, limit: number): Promise<PixPaymentRow[]> {
  return db
    .select()
    .from(pixPayments)
    .where(inArray(pixPayments.returnStatus, ['pending', 'unknown', 'requested']))
    .orderBy(asc(pixPayments.id))
    .limit(limit);
}

/** A method's pending top-ups whose charge expired before `now`, oldest first. */
export function expiredCharges(db: Db, methodId: number, now: Date, limit: number) {
  return db
    .select({ id: topups.id, txid: topups.gatewayPaymentId, expiresAt: topups.expiresAt })
    .from(topups)
    .where(
      and(
        eq(topups.paymentMethodId, methodId),
        eq(topups.status, TOPUP_STATUS.pending),
        isNotNull(topups.expiresAt),
        isNotNull(topups.gatewayPaymentId),
        lt(topups.expiresAt, now),
      ),
    )
    .orderBy(asc(topups.expiresAt))
    .limit(limit);
}

/** pending → expired (stored), once the PSP reported the charge unpaid; false if it was no longer pending. */
export async function expireTopup(db: Db, id: number): Promise<boolean> {
  const changed = await db
    .update(topups)
    .set({ status: TOPUP_STATUS.expired, updatedAt: sql`now()` })
    .where(and(eq(topups.id, id), eq(topups.status, TOPUP_STATUS.pending)))
    .returning({ id: topups.id });
  return changed.length > 0;
}

export async function checkpointOf(db: Db, methodId: number): Promise<Date | undefined> {
  const [row] = await db
    .select({ at: pixCheckpoints.reconciledUntil })
    .from(pixCheckpoints)
    .where(eq(pixCheckpoints.paymentMethodId, methodId));
  return row?.at;
}

/** Moves a method's checkpoint forward to `at` (never back: two passes may finish out of order). */
export async function advanceCheckpoint(db: Db, methodId: number, at: Date): Promise<void> {
  await db
    .insert(pixCheckpoints)
    .values({ paymentMethodId: methodId, reconciledUntil: at })
    .onConflictDoUpdate({
      target: pixCheckpoints.paymentMethodId,
      set: { reconciledUntil: sql`greatest(${pixCheckpoints.reconciledUntil}, excluded.reconciled_until)`, updatedAt: sql`now()` },
    });
}
