import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { outcomeColumn, resultColumn } from '../../platform/db/function-calls.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import type { SettingsInForce } from '../topups/mark-paid.ts';
import { topupStatusCodes } from '../topups/repository.ts';
import { giftAmount, referralTopupReward } from '../topups/rewards.ts';
import { topups } from '../topups/tables.ts';
import type { Refusal } from './disposition.ts';
import { pixPayments } from './tables.ts';

/**
 * What `receive_pix_payment` answers (db/functions/receive_pix_payment.sql): 'credited',
 * 'returned' (to be returned), 'replayed' (recorded before), 'not_payable' (the top-up changed:
 * decide again), 'stale' (settings replaced: compute again), 'unknown' (no charge of ours).
 */
export const RECEIVE_PIX_PAYMENT_OUTCOMES = ['credited', 'returned', 'replayed', 'not_payable', 'stale', 'unknown'] as const;

const result = {
  outcome: outcomeColumn('receive_pix_payment', RECEIVE_PIX_PAYMENT_OUTCOMES),
  paymentId: resultColumn('payment_id', pixPayments.id),
  topupId: resultColumn('topup_id', topups.id),
  status: resultColumn('status', topups.status),
  gift: resultColumn('gift', topups.amount),
  referralReward: resultColumn('referral_reward', topups.amount),
  returnStatus: resultColumn('return_status', pixPayments.returnStatus),
};

const p = (name: string) => sql.placeholder(name);

/** `receive_pix_payment` as a named prepared statement: one round trip per payment. */
export function prepareReceivePixPayment(db: Db) {
  return db
    .select(result)
    .from(
      sql`receive_pix_payment(${p('methodId')}::bigint, ${p('gateway')}::text, ${p('endToEndId')}::text, ${p('txid')}::text,
        ${p('amount')}::bigint, ${p('paidAt')}::timestamptz, ${p('payerCpf')}::text, ${p('payerCnpj')}::text, ${p('payerName')}::text,
        ${p('refusal')}::text, ${p('refusalText')}::text, ${p('returnId')}::text, ${p('topupSettingsId')}::bigint,
        ${p('referralSettingsId')}::bigint, ${p('giftFirst')}::bigint, ${p('giftLater')}::bigint, ${p('referralReward')}::bigint,
        ${topupStatusCodes('pending', 'paid', 'expired', 'returned')})`,
    )
    .prepare('receive_pix_payment');
}

export type ReceiveStatement = ReturnType<typeof prepareReceivePixPayment>;
export type ReceiveAnswer = Awaited<ReturnType<ReceiveStatement['execute']>>[number];

/** The return id of a payment: ours, derived from it, so asking twice is the same return (API Pix's DevolucaoId). */
export function returnIdOf(endToEndId: string): string {
  return `D${endToEndId}`;
}

/** A settings change between reading and applying makes the function answer `stale`; each retry reads again. */
const SETTINGS_ATTEMPTS = 5;

/**
 * Applies one decided payment: the settings' rules computed here (rewards.ts), the gates in the
 * database. Answers the function's row for every outcome but `stale`, which it retries.
 */
export async function receivePixPayment(
  statement: ReceiveStatement,
  settingsInForce: SettingsInForce,
  input: { methodId: number; gateway: string; payment: ReceivedPix; refusal: Refusal | undefined },
): Promise<ReceiveAnswer> {
  const { payment, refusal } = input;
  for (let attempt = 1; attempt <= SETTINGS_ATTEMPTS; attempt++) {
    const seen = settingsInForce.get();
    const { topup, referral } = await seen;
    const [row] = await statement.execute({
      methodId: input.methodId,
      gateway: input.gateway,
      endToEndId: payment.endToEndId,
      txid: payment.txid,
      amount: payment.amount,
      paidAt: payment.at.toISOString(),
      payerCpf: payment.payer?.cpf ?? null,
      payerCnpj: payment.payer?.cnpj ?? null,
      payerName: payment.payer?.name ?? null,
      refusal: refusal?.code ?? null,
      refusalText: refusal?.text ?? null,
      returnId: returnIdOf(payment.endToEndId),
      topupSettingsId: topup.id,
      referralSettingsId: referral.id,
      giftFirst: giftAmount(topup.settings, payment.amount, true),
      giftLater: giftAmount(topup.settings, payment.amount, false),
      referralReward: referralTopupReward(referral.settings, payment.amount),
    });
    if (row!.outcome !== 'stale') return row!;
    settingsInForce.replaced(seen);
  }
  throw new Error(`Top-up settings kept changing while receiving PIX payment ${payment.endToEndId}.`);
}
