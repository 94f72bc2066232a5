import { retrying } from '../../platform/db/client.ts';
import type { Logger } from '../../platform/logger.ts';
import type { PixContext } from './context.ts';
import { formatUnits } from '../../platform/money.ts';
import type { PixMethod } from '../payments/pix-api/methods.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import { reportPaid, SettingsInForce } from '../topups/mark-paid.ts';
import { paymentDisposition, type PayerVerdict } from './disposition.ts';
import { payerVerdict } from './payer.ts';
import { prepareReceivePixPayment, receivePixPayment, type ReceiveStatement } from './receive.ts';
import { findChargedTopup, findNotified, findPixPayment, findPixPaymentById, preparePixLookups, type PixLookups } from './repository.ts';
import type { PixReturns } from './returns.ts';

/** What a notification's item finds before the PSP is asked (PixReceipts.notified). */
export type Notified = Awaited<ReturnType<typeof findNotified>>;

/** What became of a confirmed payment. */
export type Settled = 'credited' | 'returned' | 'replayed' | 'not_ours';

/** A top-up that changes under a payment is read and decided again; it cannot keep changing. */
const DECISION_ATTEMPTS = 3;

/**
 * Payments the PSP confirmed (a notification's item after `GET /pix/{e2eid}`, or a line of
 * `GET /pix`), each acted on once by its endToEndId: credited through the paid path, or
 * returned to its payer (docs/api.md section 13). The PSP's record is the only input: what a
 * notification claimed is never used.
 */
export class PixReceipts {
  readonly #ctx: PixContext;
  readonly #returns: PixReturns;
  readonly #receive: ReceiveStatement;
  readonly #settings: SettingsInForce;
  readonly #lookups: PixLookups;

  constructor(ctx: PixContext, returns: PixReturns) {
    this.#ctx = ctx;
    this.#returns = returns;
    this.#receive = prepareReceivePixPayment(ctx.db);
    this.#lookups = preparePixLookups(ctx.db);
    this.#settings = new SettingsInForce(ctx.db, ctx.config.regulation);
  }

  /**
   * As a notification's item arrives: whether its payment was already acted on (a replayed
   * notification needs no question to the PSP), and, read in the same round trip, the top-up of
   * the txid the item claims, which `settle` uses if the PSP's answer names that txid.
   */
  async notified(method: PixMethod, endToEndId: string, claimedTxid: string | undefined): Promise<Notified> {
    return findNotified(this.#lookups, endToEndId, method.gateway, claimedTxid);
  }

  /**
   * `unrecorded`: the caller has just seen (`notified`) that the endToEndId was not acted on, so it
   * is not looked up again; one recorded meanwhile is still answered 'replayed' by the function.
   * `readAhead`: the top-up the caller read for a txid before the PSP answered; it stands for the
   * first decision when the payment names that txid (a top-up that changed since is refused by the
   * database as `not_payable`, and then read again).
   */
  async settle(
    method: PixMethod,
    payment: ReceivedPix,
    log: Logger,
    options: { unrecorded?: boolean; readAhead?: Notified['topup'] } = {},
  ): Promise<Settled> {
    const db = this.#ctx.db;
    const context = { paymentMethodId: method.id, endToEndId: payment.endToEndId, txid: payment.txid, amount: formatUnits(payment.amount) };
    const recorded = options.unrecorded === true ? undefined : await findPixPayment(db, payment.endToEndId);
    if (recorded !== undefined) {
      await this.#returns.learn(recorded, payment.returns, log);
      return 'replayed';
    }
    if (payment.txid === undefined) {
      // A transfer to the key that names no charge: not a top-up (several systems may share a key).
      log.info(context, 'PIX payment without a txid: not one of our charges; ignored');
      return 'not_ours';
    }
    const charged = { ...payment, txid: payment.txid };
    // Whose money it is (REGULATION=br) is asked once: the top-up's player does not change.
    let payer: PayerVerdict | undefined;
    for (let attempt = 1; attempt <= DECISION_ATTEMPTS; attempt++) {
      const readAhead = attempt === 1 && options.readAhead?.txid === payment.txid ? options.readAhead : undefined;
      const topup = readAhead !== undefined ? readAhead.row : await findChargedTopup(this.#lookups, method.gateway, payment.txid);
      if (topup === undefined || topup.paymentMethodId !== method.id) {
        log.warn(context, 'PIX payment for a txid that is none of our charges; ignored');
        return 'not_ours';
      }
      payer ??= await payerVerdict(this.#ctx, method.client, charged, topup.userId);
      const decision = paymentDisposition(payment, topup, payer);
      const refusal = decision.creditable ? undefined : decision.refusal;
      const answer = await retrying(() =>
        receivePixPayment(this.#receive, this.#settings, { methodId: method.id, gateway: method.gateway, payment, refusal }),
      );
      switch (answer.outcome) {
        case 'credited':
          // One statement on its own: it has committed by now.
          reportPaid(this.#ctx.money, {
            outcome: 'paid',
            topupId: topup.id,
            via: 'webhook',
            amount: payment.amount,
            gift: answer.gift!,
            referralReward: answer.referralReward!,
          });
          log.info({ ...context, topupId: topup.id }, 'PIX payment credited');
          return 'credited';
        case 'returned':
          log.warn({ ...context, topupId: topup.id, reason: refusal?.code }, 'PIX payment cannot be credited; returning it to the payer');
          await this.#returns.send(answer.paymentId!, log);
          return 'returned';
        case 'replayed': {
          const row = await findPixPaymentById(db, answer.paymentId!);
          if (row !== undefined) await this.#returns.learn(row, payment.returns, log);
          return 'replayed';
        }
        case 'unknown':
          log.warn(context, 'PIX payment for a txid that is none of our charges; ignored');
          return 'not_ours';
        case 'not_payable':
          // The top-up changed since it was read: read it again and decide again.
          continue;
        case 'stale':
          throw new Error('receive_pix_payment answered stale after its retries');
      }
    }
    throw new Error(`The top-up of PIX payment ${payment.endToEndId} kept changing while it was decided.`);
  }
}
