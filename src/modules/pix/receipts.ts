import type { Logger } from '../../platform/logger.ts';
import type { PixContext } from './context.ts';
import { formatUnits } from '../../platform/money.ts';
import type { PixMethod } from '../payments/pix-api/methods.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import { reportPaid, SettingsInForce } from '../topups/mark-paid.ts';
import { paymentDisposition, type PayerVerdict, type Refusal } from './disposition.ts';
import { judgesPayer, payerVerdict } from './payer.ts';
import { PixReceiver } from './receive.ts';
import { findChargedTopup, findPixPayment, findPixPaymentById, preparePixLookups, type PixLookups } from './repository.ts';
import type { PixReturns } from './returns.ts';

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
  readonly #receiver: PixReceiver;
  readonly #lookups: PixLookups;

  constructor(ctx: PixContext, returns: PixReturns) {
    this.#ctx = ctx;
    this.#returns = returns;
    this.#lookups = preparePixLookups(ctx.db);
    this.#receiver = new PixReceiver(ctx.db, new SettingsInForce(ctx.db, ctx.config.regulation));
  }

  /**
   * `unrecorded`: the payment is most likely new (a notification's item that reports no return),
   * so it is not looked up first unless regulated; one recorded after all is answered 'replayed'
   * by the statement.
   *
   * Unless whose money it is must be judged (REGULATION=br), the first attempt credits without
   * reading the top-up: the disposition rule (disposition.ts) then refuses only a top-up that is
   * no longer pending or another amount, which is exactly pay_topup's gate, so a payment that may
   * be credited is credited in one statement, and one the gate refuses (`not_payable`) is read and
   * decided by the rule, as every payment is under regulation.
   */
  async settle(method: PixMethod, payment: ReceivedPix, log: Logger, options: { unrecorded?: boolean } = {}): Promise<Settled> {
    const db = this.#ctx.db;
    const context = { paymentMethodId: method.id, endToEndId: payment.endToEndId, txid: payment.txid, amount: formatUnits(payment.amount) };
    // Under regulation a replay is looked up first all the same: deciding it may take a question to the PSP (payer.ts).
    const regulated = judgesPayer(this.#ctx);
    const recorded = options.unrecorded === true && !regulated ? undefined : await findPixPayment(db, payment.endToEndId);
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
    if (!regulated) {
      const settled = await this.#apply(method, payment, undefined, log, context);
      if (settled !== 'again') return settled;
    }
    // Whose money it is (REGULATION=br) is asked once: the top-up's player does not change.
    let payer: PayerVerdict | undefined;
    for (let attempt = 1; attempt <= DECISION_ATTEMPTS; attempt++) {
      const topup = await findChargedTopup(this.#lookups, method.gateway, payment.txid);
      if (topup === undefined || topup.paymentMethodId !== method.id) {
        log.warn(context, 'PIX payment for a txid that is none of our charges; ignored');
        return 'not_ours';
      }
      payer ??= await payerVerdict(this.#ctx, method.client, charged, topup.userId);
      const decision = paymentDisposition(payment, topup, payer);
      const settled = await this.#apply(method, payment, decision.creditable ? undefined : decision.refusal, log, context);
      if (settled !== 'again') return settled;
    }
    throw new Error(`The top-up of PIX payment ${payment.endToEndId} kept changing while it was decided.`);
  }

  /**
   * One decided payment through `receive_pix_payment`, alone or in a batch (PixReceiver,
   * receive.ts; `refusal` undefined: credit it); 'again' when the top-up was not as decided
   * (`not_payable`), which the caller reads and decides again.
   */
  async #apply(
    method: PixMethod,
    payment: ReceivedPix,
    refusal: Refusal | undefined,
    log: Logger,
    context: Record<string, unknown>,
  ): Promise<Settled | 'again'> {
    const answer = await this.#receiver.receive({ methodId: method.id, gateway: method.gateway, payment, refusal }, log);
    switch (answer.outcome) {
      case 'credited':
        // One statement on its own: it has committed by now.
        reportPaid(this.#ctx.money, {
          outcome: 'paid',
          topupId: answer.topupId!,
          via: 'webhook',
          amount: payment.amount,
          gift: answer.gift!,
          referralReward: answer.referralReward!,
        });
        log.info({ ...context, topupId: answer.topupId }, 'PIX payment credited');
        return 'credited';
      case 'returned':
        log.warn(
          { ...context, topupId: answer.topupId, reason: refusal?.code },
          'PIX payment cannot be credited; returning it to the payer',
        );
        await this.#returns.send(answer.paymentId!, log);
        return 'returned';
      case 'replayed': {
        const row = await findPixPaymentById(this.#ctx.db, answer.paymentId!);
        if (row !== undefined) await this.#returns.learn(row, payment.returns, log);
        return 'replayed';
      }
      case 'unknown':
        log.warn(context, 'PIX payment for a txid that is none of our charges; ignored');
        return 'not_ours';
      case 'not_payable':
        // The top-up is not as decided (or, credited without reading, not payable): read it and decide.
        return 'again';
      case 'stale':
        throw new Error('receive_pix_payment answered stale after its retries');
    }
  }
}
