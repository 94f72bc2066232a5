import { sql } from 'drizzle-orm';
import { one, type Db } from '../../platform/db/client.ts';
import { ConflictError } from '../../platform/errors.ts';
import { toCents } from '../../platform/money.ts';
import { referralSettings, topupSettings, type StoredSettings } from '../settings/definitions.ts';
import type { LedgerOperation } from '../wallet/ledger.ts';
import { applyLedgerOperations } from '../wallet/ledger-batch.ts';
import { effectiveStatus, notExpired, TOPUP_STATUS } from './repository.ts';
import { giftAmount, referralTopupReward } from './rewards.ts';

/** Which top-up: by id (admin), or by the gateway's payment id and the amount it reports (webhook). */
export type PaidTarget = { id: number } | { gateway: string; paymentId: string; amount: bigint };

export interface MarkPaidInput {
  target: PaidTarget;
  via: 'webhook' | 'admin';
  /** The admin who confirmed; null for a gateway. */
  actorId: number | null;
  /**
   * A gateway reporting a payment of an expired top-up is believed (the money arrived, see
   * docs/wallet.md); an admin cannot confirm an expired one.
   */
  allowExpired: boolean;
}

export type MarkPaidOutcome =
  | { paid: true; topupId: number; amount: bigint; gift: bigint; referralReward: bigint }
  | { paid: false; topupId: number; status: number; amount: bigint }
  | { paid: false; topupId: null };

interface PaidRow {
  id: number | string;
  paid_count: number | string;
  user_id: number | string;
  amount: number | string | bigint;
  currency: string;
  ref: number | string | null;
  topup_settings: StoredSettings | string;
  referral_settings: StoredSettings | string;
}

function json(value: StoredSettings | string): StoredSettings {
  return typeof value === 'string' ? (JSON.parse(value) as StoredSettings) : value;
}

/**
 * THE one way a top-up becomes paid (webhook, admin update, admin confirm), inside the caller's
 * transaction. The conditional update `status = 0 → 1` is the exactly-once gate: of any number of
 * concurrent attempts one passes, the others find status 1 and move nothing. Then, in order: the
 * amount (`topup`), the gift (`topup_gift`) and the referrer's reward (`referral_bonus`), each a
 * ledger line with its own idempotency key, using the settings versions in force at this moment
 * (recorded on the top-up).
 */
export async function markTopupPaid(tx: Db, input: MarkPaidInput): Promise<MarkPaidOutcome> {
  const expiry = input.allowExpired ? sql`` : sql`and ${notExpired('t')}`;
  const target = input.target;
  const which =
    'id' in target
      ? sql`t.id = ${target.id}`
      : sql`t.gateway = ${target.gateway} and t.gateway_payment_id = ${target.paymentId} and t.amount = ${target.amount}`;
  const row = await one<PaidRow>(
    tx,
    sql`with ts as (select id, value from settings where name = 'topup' order by version desc limit 1),
      rs as (select id, value from settings where name = 'referral' order by version desc limit 1),
      paid as (
        update topups t set status = 1, paid_at = now(), updated_at = now(), paid_via = ${input.via}, paid_by = ${input.actorId},
          topup_settings_id = (select id from ts), referral_settings_id = (select id from rs)
        where ${which} and t.status = 0 ${expiry}
        returning t.id, t.user_id, t.amount, t.currency
      ),
      counted as (
        insert into topup_counters (user_id, paid_count, paid_total) select user_id, 1, amount from paid
        on conflict (user_id) do update set paid_count = topup_counters.paid_count + 1,
          paid_total = topup_counters.paid_total + excluded.paid_total, updated_at = now()
        returning paid_count
      )
      select paid.*, u.ref, ts.value as topup_settings, rs.value as referral_settings, (select paid_count from counted) as paid_count
      from paid join users u on u.id = paid.user_id cross join ts cross join rs`,
  );
  if (row === undefined) {
    const lookup =
      'id' in target ? sql`t.id = ${target.id}` : sql`t.gateway = ${target.gateway} and t.gateway_payment_id = ${target.paymentId}`;
    const current = await one<{ id: number | string; status: number; amount: number | string | bigint }>(
      tx,
      sql`select t.id, ${effectiveStatus('t')}::int as status, t.amount from topups t where ${lookup}`,
    );
    if (current === undefined) return { paid: false, topupId: null };
    return { paid: false, topupId: Number(current.id), status: Number(current.status), amount: toCents(current.amount) };
  }

  const id = Number(row.id);
  // The counter upsert above waited for any concurrent payment of this user: 1 means first.
  const paying = paymentOf(row, Number(row.paid_count) === 1);
  // One statement for the three lines: the status gate above makes their keys fresh.
  await applyLedgerOperations(tx, paying.ops);
  return { paid: true, topupId: id, amount: paying.amount, gift: paying.gift, referralReward: paying.referralReward };
}

interface Paying {
  amount: bigint;
  gift: bigint;
  referralReward: bigint;
  ops: LedgerOperation[];
}

/** The money a payment moves, by the rules of docs/wallet.md: amount, gift, referral reward. */
function paymentOf(row: PaidRow, firstPaid: boolean): Paying {
  const id = Number(row.id);
  const userId = Number(row.user_id);
  const amount = toCents(row.amount);
  const reference = { referenceType: 'topup', referenceId: id };
  const ops: LedgerOperation[] = [
    { userId, currency: row.currency, type: 'topup', amount, ...reference, description: `Top-up #${id}`, idempotencyKey: `topup:${id}` },
  ];
  const gift = giftAmount(topupSettings(json(row.topup_settings)), amount, firstPaid);
  if (gift > 0n) {
    ops.push({
      userId,
      currency: row.currency,
      type: 'topup_gift',
      amount: gift,
      ...reference,
      description: `Gift on top-up #${id}`,
      // TOPUP_COLUMNS reads the gift back through this key.
      idempotencyKey: `topup:${id}:gift`,
    });
  }
  const referralReward = row.ref === null ? 0n : referralTopupReward(referralSettings(json(row.referral_settings)), amount);
  if (referralReward > 0n) {
    ops.push({
      userId: Number(row.ref),
      currency: row.currency,
      type: 'referral_bonus',
      amount: referralReward,
      ...reference,
      description: `Referral reward: top-up #${id} of user #${userId}`,
      idempotencyKey: `topup:${id}:referral`,
    });
  }
  return { amount, gift, referralReward, ops };
}

/** The 409 an admin gets for a top-up that is not pending. */
export function notPendingConflict(status: number): ConflictError {
  switch (status) {
    case TOPUP_STATUS.paid:
      return new ConflictError('The top-up is already paid.');
    case TOPUP_STATUS.cancelled:
      return new ConflictError('The top-up is cancelled.');
    default:
      return new ConflictError('The top-up has expired.');
  }
}
