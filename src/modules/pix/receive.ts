import { sql } from 'drizzle-orm';
import { Coalescer } from '../../platform/coalesce.ts';
import { retrying, type Db } from '../../platform/db/client.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { outcomeColumn, resultColumn } from '../../platform/db/function-calls.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import type { PaySettings, SettingsInForce } from '../topups/mark-paid.ts';
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

export interface ReceiveInput {
  methodId: number;
  gateway: string;
  payment: ReceivedPix;
  refusal: Refusal | undefined;
}

/** One payment's arguments besides the settings versions, as both statements take them. */
function argumentsOf(input: ReceiveInput, { topup, referral }: PaySettings) {
  const { payment, refusal } = input;
  return {
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
    giftFirst: giftAmount(topup.settings, payment.amount, true),
    giftLater: giftAmount(topup.settings, payment.amount, false),
    referralReward: referralTopupReward(referral.settings, payment.amount),
  };
}

/**
 * Applies one decided payment: the settings' rules computed here (rewards.ts), the gates in the
 * database. Answers the function's row for every outcome but `stale`, which it retries.
 */
export async function receivePixPayment(
  statement: ReceiveStatement,
  settingsInForce: SettingsInForce,
  input: ReceiveInput,
): Promise<ReceiveAnswer> {
  for (let attempt = 1; attempt <= SETTINGS_ATTEMPTS; attempt++) {
    const seen = settingsInForce.get();
    const settings = await seen;
    const [row] = await statement.execute({
      ...argumentsOf(input, settings),
      topupSettingsId: settings.topup.id,
      referralSettingsId: settings.referral.id,
    });
    if (row!.outcome !== 'stale') return row!;
    settingsInForce.replaced(seen);
  }
  throw new Error(`Top-up settings kept changing while receiving PIX payment ${input.payment.endToEndId}.`);
}

/**
 * `receive_pix_payments` (db/functions/receive_pix_payments.sql) as a named prepared statement:
 * a batch of payments in one round trip and one transaction, each still its own call of
 * `receive_pix_payment`, answered with its place in the batch (`ordinal`, from 1).
 */
export function prepareReceivePixPayments(db: Db) {
  return db
    .select({ ...result, ordinal: sql`ordinal`.mapWith(Number) })
    .from(
      sql`receive_pix_payments(${p('payments')}::jsonb, ${p('topupSettingsId')}::bigint, ${p('referralSettingsId')}::bigint,
        ${topupStatusCodes('pending', 'paid', 'expired', 'returned')})`,
    )
    .prepare('receive_pix_payments');
}

export type ReceiveBatchStatement = ReturnType<typeof prepareReceivePixPayments>;

/** The batch statement's parameters: the payments as one JSON array (BIGINTs as text), the settings versions they were computed with. */
export function batchParameters(inputs: ReceiveInput[], settings: PaySettings) {
  return {
    payments: JSON.stringify(
      inputs.map((input) => argumentsOf(input, settings)),
      (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
    ),
    topupSettingsId: settings.topup.id,
    referralSettingsId: settings.referral.id,
  };
}

/** Payments in one batch at most: its statement holds each one's rows until all are written. */
const MAX_BATCH = 32;

/**
 * Where decided payments are applied. A payment that arrives while others are being written
 * waits for them and goes in the next batch, one statement for all (src/platform/coalesce.ts):
 * under load a commit and a round trip serve many payments, and alone a payment goes at once,
 * through the one-payment statement. A batch that fails as a whole (an error in one payment
 * rolls back the statement), or whose settings were replaced, is applied again one payment at
 * a time, so each payment's outcome is its own.
 */
export class PixReceiver {
  readonly #one: ReceiveStatement;
  readonly #batch: ReceiveBatchStatement;
  readonly #settings: SettingsInForce;
  readonly #coalescer: Coalescer<{ input: ReceiveInput; log: Logger }, ReceiveAnswer>;

  constructor(db: Db, settings: SettingsInForce) {
    this.#one = prepareReceivePixPayment(db);
    this.#batch = prepareReceivePixPayments(db);
    this.#settings = settings;
    this.#coalescer = new Coalescer((items) => this.#apply(items), { maxItems: MAX_BATCH });
  }

  /** Applies one decided payment (its row for every outcome but `stale`); `log` hears of its batch's failure. */
  receive(input: ReceiveInput, log: Logger): Promise<ReceiveAnswer> {
    return this.#coalescer.submit({ input, log });
  }

  async #apply(items: { input: ReceiveInput; log: Logger }[]): Promise<PromiseSettledResult<ReceiveAnswer>[]> {
    const answers = items.length > 1 ? await this.#together(items) : [];
    return Promise.allSettled(
      items.map(async ({ input }, index) => answers[index] ?? (await retrying(() => receivePixPayment(this.#one, this.#settings, input)))),
    );
  }

  /** The batch in one statement: each payment's answer, or none where it must go again on its own. */
  async #together(items: { input: ReceiveInput; log: Logger }[]): Promise<(ReceiveAnswer | undefined)[]> {
    const seen = this.#settings.get();
    const settings = await seen;
    let rows;
    try {
      rows = await this.#batch.execute(
        batchParameters(
          items.map(({ input }) => input),
          settings,
        ),
      );
    } catch (error) {
      // The statement rolled back: nothing of the batch was written. Each payment's own
      // statement then says which one was wrong (a deadlock with another batch is tried again).
      items[0]!.log.warn(
        { err: loggableError(error), payments: items.map(({ input }) => input.payment.endToEndId) },
        'PIX payments written together failed as one; writing each on its own',
      );
      return [];
    }
    // A stale answer wrote nothing for its payment: that one goes again on its own, with the settings read again.
    const answers: (ReceiveAnswer | undefined)[] = [];
    for (const { ordinal, ...row } of rows) {
      if (row.outcome === 'stale') this.#settings.replaced(seen);
      else answers[ordinal - 1] = row;
    }
    return answers;
  }
}
