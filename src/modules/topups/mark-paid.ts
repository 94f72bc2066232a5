import { sql } from 'drizzle-orm';
import type { Regulation } from '../../config.ts';
import type { Db } from '../../platform/db/client.ts';
import { outcomeColumn, resultColumn } from '../../platform/db/function-calls.ts';
import { ConflictError } from '../../platform/errors.ts';
import type { MoneyEvents } from '../../platform/metrics/money.ts';
import type { ReferralSettings, TopupSettings } from '../settings/definitions.ts';
import { InForce } from '../settings/in-force.ts';
import { currentReferralSettings, currentTopupSettings } from '../settings/repository.ts';
import { TOPUP_STATUS, topupStatusCodes } from './repository.ts';
import { topups } from './tables.ts';
import { giftAmount, referralTopupReward } from './rewards.ts';

/**
 * Which top-up, with the amount the caller expects (part of the gate: another amount never
 * reaches the ledger): by id (admin), or by the gateway's payment id (webhook).
 */
export type PaidTarget = ({ id: number } | { gateway: string; paymentId: string }) & { amount: bigint };

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

/** A payment that went through: the lines pay_topup wrote (0: no such line). */
export interface PaidOutcome {
  outcome: 'paid';
  topupId: number;
  via: MarkPaidInput['via'];
  amount: bigint;
  gift: bigint;
  referralReward: bigint;
}

export type MarkPaidOutcome =
  | PaidOutcome
  /** Nothing moved; the status (expiry applied) and the amount say why. */
  | { outcome: 'not_payable'; topupId: number; status: number; amount: bigint }
  | { outcome: 'unknown' };

/** The settings versions a payment is computed with, as `SettingsInForce` reads them. */
export interface PaySettings {
  topup: { id: number; settings: TopupSettings };
  referral: { id: number; settings: ReferralSettings };
}

/**
 * The settings versions payments are computed with, read through `db` (the database, or an
 * admin's transaction), as they apply under `regulation` (REGULATION=br: no gifts or referral
 * rewards, settings/bonuses.ts).
 */
export class SettingsInForce extends InForce<PaySettings> {
  constructor(db: Db, regulation: Regulation = 'none') {
    super(async () => ({ topup: await currentTopupSettings(db, regulation), referral: await currentReferralSettings(db, regulation) }));
  }
}

const p = (name: string) => sql.placeholder(name);

/**
 * What `pay_topup` answers (db/functions/pay_topup.sql): 'paid' (with the gift and referral
 * lines it wrote, 0 for none), 'not_payable' (status and amount say why), 'stale' (settings
 * replaced: compute again), 'unknown'.
 */
export const PAY_TOPUP_OUTCOMES = ['paid', 'not_payable', 'stale', 'unknown'] as const;

const payTopupResult = {
  outcome: outcomeColumn('pay_topup', PAY_TOPUP_OUTCOMES),
  topupId: resultColumn('topup_id', topups.id),
  status: resultColumn('status', topups.status),
  amount: resultColumn('amount', topups.amount),
  gift: resultColumn('gift', topups.amount),
  referralReward: resultColumn('referral_reward', topups.amount),
};

/**
 * `pay_topup` as a named prepared statement: parsed once per connection. Prepare it on the
 * database for the webhook, on the transaction for an admin change; the text is the same, so a
 * connection shares it between both.
 */
export function preparePayTopup(db: Db) {
  return db
    .select(payTopupResult)
    .from(
      sql`pay_topup(${p('topupId')}::bigint, ${p('gateway')}::text, ${p('paymentId')}::text, ${p('amount')}::bigint,
        ${p('via')}::text, ${p('actorId')}::bigint, ${p('allowExpired')}::boolean, ${p('topupSettingsId')}::bigint,
        ${p('referralSettingsId')}::bigint, ${p('giftFirst')}::bigint, ${p('giftLater')}::bigint, ${p('referralReward')}::bigint,
        ${topupStatusCodes('pending', 'paid', 'expired')})`,
    )
    .prepare('pay_topup');
}

export type PayTopupStatement = ReturnType<typeof preparePayTopup>;

/** A settings change between reading and paying makes `pay_topup` answer `stale`; each retry reads again. */
const SETTINGS_ATTEMPTS = 5;

/**
 * THE one way a top-up becomes paid (webhook, admin update, admin confirm). The rules of
 * rewards.ts compute the gift for both cases (first paid top-up or not) and the referral reward
 * from the settings in force; `pay_topup` applies them in the database: the status gate 0 → 1
 * (exactly once), the paid counter that decides "first", and the three ledger lines. When
 * settings were replaced in between, it moves nothing and this reads them again.
 */
export async function markTopupPaid(
  statement: PayTopupStatement,
  settingsInForce: SettingsInForce,
  input: MarkPaidInput,
): Promise<MarkPaidOutcome> {
  const { target } = input;
  for (let attempt = 1; attempt <= SETTINGS_ATTEMPTS; attempt++) {
    const seen = settingsInForce.get();
    const { topup, referral } = await seen;
    const [row] = await statement.execute({
      topupId: 'id' in target ? target.id : null,
      gateway: 'id' in target ? null : target.gateway,
      paymentId: 'id' in target ? null : target.paymentId,
      amount: target.amount,
      via: input.via,
      actorId: input.actorId,
      allowExpired: input.allowExpired,
      topupSettingsId: topup.id,
      referralSettingsId: referral.id,
      giftFirst: giftAmount(topup.settings, target.amount, true),
      giftLater: giftAmount(topup.settings, target.amount, false),
      referralReward: referralTopupReward(referral.settings, target.amount),
    });
    const answer = row!;
    switch (answer.outcome) {
      case 'paid':
        return {
          outcome: 'paid',
          topupId: answer.topupId!,
          via: input.via,
          amount: target.amount,
          gift: answer.gift!,
          referralReward: answer.referralReward!,
        };
      case 'not_payable':
        return { outcome: 'not_payable', topupId: answer.topupId!, status: answer.status!, amount: answer.amount! };
      case 'unknown':
        return { outcome: 'unknown' };
      case 'stale':
        settingsInForce.replaced(seen);
    }
  }
  throw new Error(`Top-up settings kept changing while paying ${JSON.stringify({ ...target, amount: String(target.amount) })}.`);
}

/** Tells the metrics about a payment, once it committed (the webhook's statement, or the admin's transaction). */
export function reportPaid(money: MoneyEvents, paid: PaidOutcome): void {
  money.topupPaid(paid.via);
  money.ledgerLine('topup', paid.amount);
  if (paid.gift > 0n) money.ledgerLine('topup_gift', paid.gift);
  if (paid.referralReward > 0n) money.ledgerLine('referral_bonus', paid.referralReward);
}

/** The 409 an admin gets for a top-up that is not pending. */
export function notPendingConflict(status: number): ConflictError {
  switch (status) {
    case TOPUP_STATUS.paid:
      return new ConflictError('The top-up is already paid.', 'topup_already_paid');
    case TOPUP_STATUS.cancelled:
      return new ConflictError('The top-up is cancelled.', 'topup_cancelled');
    default:
      return new ConflictError('The top-up has expired.', 'topup_expired');
  }
}
