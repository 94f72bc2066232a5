import { sql, type SQL } from 'drizzle-orm';
import { randomAlphanumeric } from '../../platform/crypto.ts';
import { one, type Db } from '../../platform/db/client.ts';

export const TOPUP_STATUS = { pending: 0, paid: 1, cancelled: 2, expired: 3 } as const;
/**
 * The status as every reader sees it: a pending row older than 24 hours reads as expired (3).
 * Expiry is derived, not stored, so no sweeper is needed and every reader agrees at every
 * instant; the rule is the database function `topup_status`, which the paid path uses too.
 */
export function effectiveStatus(alias: string): SQL {
  const t = sql.raw(alias);
  return sql`topup_status(${t}.status, ${t}.created_at)`;
}

/**
 * The select list of a top-up record over alias `t`. The gift is its ledger line (the key
 * `topup_gift_key` names, which pay_topup writes): one source of truth, and paying writes no
 * second update of the top-up.
 */
export const TOPUP_COLUMNS = sql`t.id, t.public_id, t.user_id, t.payment_method_id, t.amount,
  coalesce((select g.amount from ledger_entries g where g.idempotency_key = topup_gift_key(t.id)), 0) as gift_amount, t.currency,
  ${effectiveStatus('t')} as status, t.gateway, t.gateway_payment_id, t.qr_code, t.paid_at, t.created_at, t.updated_at`;

export interface TopupRow {
  id: number | string;
  public_id: string;
  user_id: number | string;
  payment_method_id: number | string;
  amount: number | string | bigint;
  gift_amount: number | string | bigint;
  currency: string;
  status: number;
  gateway: string;
  gateway_payment_id: string | null;
  qr_code: string | null;
  paid_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export async function findTopup(db: Db, id: number): Promise<TopupRow | undefined> {
  return one<TopupRow>(db, sql`select ${TOPUP_COLUMNS} from topups t where t.id = ${id}`);
}

export async function findTopupByPublicId(db: Db, publicId: string): Promise<TopupRow | undefined> {
  return one<TopupRow>(db, sql`select ${TOPUP_COLUMNS} from topups t where t.public_id = ${publicId}`);
}

export async function findTopupByPayment(db: Db, gateway: string, paymentId: string): Promise<TopupRow | undefined> {
  return one<TopupRow>(db, sql`select ${TOPUP_COLUMNS} from topups t where t.gateway = ${gateway} and t.gateway_payment_id = ${paymentId}`);
}

export interface NewTopup {
  userId: number;
  paymentMethodId: number;
  amount: bigint;
  currency: string;
  gateway: string;
}

export async function insertPendingTopup(db: Db, topup: NewTopup): Promise<TopupRow> {
  const row = await one<TopupRow>(
    db,
    sql`insert into topups (public_id, user_id, payment_method_id, amount, currency, gateway)
      values (${randomAlphanumeric(24)}, ${topup.userId}, ${topup.paymentMethodId}, ${topup.amount}, ${topup.currency}, ${topup.gateway})
      returning id`,
  );
  return (await findTopup(db, Number(row!.id)))!;
}

export async function attachCharge(db: Db, id: number, paymentId: string, qrCode: string): Promise<void> {
  await db.execute(sql`update topups set gateway_payment_id = ${paymentId}, qr_code = ${qrCode}, updated_at = now() where id = ${id}`);
}

/** pending → cancelled; false when the top-up was no longer pending (or had expired). */
export async function cancelPendingTopup(db: Db, id: number): Promise<boolean> {
  const row = await one(
    db,
    sql`update topups t set status = 2, updated_at = now() where t.id = ${id} and ${effectiveStatus('t')} = 0 returning t.id`,
  );
  return row !== undefined;
}
