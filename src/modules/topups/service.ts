import type { IncomingHttpHeaders } from 'node:http';
import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import { isRetryable, transaction, type Db } from '../../platform/db/client.ts';
import { ConflictError, GatewayUnavailableError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { formatUnits, parseMoney } from '../../platform/money.ts';
import type { PaymentEvent, PaymentGateways } from '../payments/gateways/gateway.ts';
import { isValidPixBrCode } from '../payments/brcode.ts';
import { findPaymentMethod } from '../payments/methods.ts';
import { isPixGateway } from '../payments/pix-api/config.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import type { TopupOption } from '../settings/definitions.ts';
import { currentTopupSettings } from '../settings/repository.ts';
import {
  markTopupPaid,
  notPendingConflict,
  preparePayTopup,
  reportPaid,
  SettingsInForce,
  type PaidOutcome,
  type MarkPaidInput,
  type PayTopupStatement,
} from './mark-paid.ts';
import { payerRefusal, statedPayerVerdict } from './own-account.ts';
import {
  attachCharge,
  cancelPendingTopup,
  findTopup,
  findTopupByPayment,
  findTopupByPublicId,
  topupPayableUntil,
  insertPendingTopup,
  returnPendingTopup,
  TOPUP_STATUS,
  TOPUP_STATUSES,
  type TopupRow,
} from './repository.ts';

/** An admin's change of a top-up, with the payment it made if it made one (to report after commit). */
interface AdminChange {
  row: TopupRow;
  paid?: PaidOutcome;
}

export interface WebhookResult {
  topupId: number;
  status: number;
  /** True when the notification changed nothing (a replay, or a state already reached). */
  duplicate: boolean;
}

/** Top-up rules: creation through a gateway, payment notifications and admin transitions. */
/**
 * Responsible gambling's checks of a new top-up (REGULATION=br, src/modules/limits): the player
 * may deposit at all, and the amount fits the deposit limits, checked in the transaction that
 * writes the top-up. A payment already made is credited whatever the limits (docs/regulation.md).
 */
export interface DepositGate {
  assertMayPlay(userId: number): Promise<void>;
  assertDepositFits(tx: Db, userId: number, amount: bigint): Promise<void>;
}

export class TopupService {
  readonly #ctx: AppContext;
  readonly #gateways: PaymentGateways;
  /** The webhook's payment statement and the settings it last saw: one round trip per payment. */
  readonly #pay: PayTopupStatement;
  readonly #settings: SettingsInForce;
  readonly #deposits: DepositGate | undefined;

  constructor(ctx: AppContext, gateways: PaymentGateways, deposits?: DepositGate) {
    this.#ctx = ctx;
    this.#gateways = gateways;
    this.#deposits = deposits;
    this.#pay = preparePayTopup(ctx.db);
    this.#settings = new SettingsInForce(ctx.db, ctx.config.regulation);
  }

  /**
   * Creates a pending top-up and its charge. The gateway is called between two short
   * transactions, never inside one; if it fails the top-up is cancelled, not left pending.
   */
  async create(userId: number, paymentMethodId: number, rawAmount: unknown, log: Logger): Promise<TopupRow> {
    const db = this.#ctx.db;
    await this.#deposits?.assertMayPlay(userId);
    const method = await findPaymentMethod(db, paymentMethodId);
    const gateway = method === undefined ? undefined : this.#gateways.get(method.gateway);
    if (method === undefined || method.status !== 1 || gateway === undefined) {
      throw ValidationError.field('payment_method_id', 'The selected payment method id is invalid.');
    }
    const min = method.min_amount;
    const max = method.max_amount;
    const amount = parseMoney('amount', rawAmount, { min: 1n });
    if (amount < min) throw ValidationError.field('amount', `The amount must be at least ${formatUnits(min)}.`);
    if (amount > max) throw ValidationError.field('amount', `The amount must not be greater than ${formatUnits(max)}.`);

    const pending = { userId, paymentMethodId: method.id, amount, currency: this.#ctx.config.defaultCurrency, gateway: gateway.code };
    const deposits = this.#deposits;
    const topup =
      deposits === undefined
        ? await insertPendingTopup(db, pending)
        : await transaction(db, async (tx) => {
            await deposits.assertDepositFits(tx, userId, amount);
            return insertPendingTopup(tx, pending);
          });
    const id = topup.id;
    let charge;
    try {
      charge = await gateway.createCharge({
        reference: topup.public_id,
        paymentMethodId: method.id,
        amountCents: amount,
        currency: topup.currency,
        description: `Top-up #${id}`,
      });
      if (charge.paymentId === '' || !isValidPixBrCode(charge.qrCode)) throw new Error('The gateway answered an unusable charge.');
    } catch (error) {
      // A PSP's own words (its problem's type, title, violations) when it gave them; never a token.
      const detail = error instanceof PixApiError ? { psp: error.loggable() } : { err: loggableError(error) };
      log.error({ ...detail, topupId: id, gateway: gateway.code }, 'payment gateway failed to create a charge; top-up cancelled');
      await cancelPendingTopup(db, id);
      throw new GatewayUnavailableError();
    }
    await attachCharge(db, id, charge.paymentId, charge.qrCode, charge.expiresAt);
    return (await findTopup(db, id))!;
  }

  /** A gateway notification: authenticated, matched to its top-up, applied at most once. */
  async handleWebhook(gatewayCode: string, rawBody: string, headers: IncomingHttpHeaders, log: Logger): Promise<WebhookResult> {
    const gateway = this.#gateways.get(gatewayCode);
    if (gateway?.verifyWebhook === undefined) throw new NotFoundError();
    const event = gateway.verifyWebhook(rawBody, headers, new Date());
    const context = { gateway: gateway.code, paymentId: event.paymentId };
    const refuseAmount = (topupId: number, expected: bigint): never => {
      log.error(
        { ...context, topupId, expected: formatUnits(expected), received: formatUnits(event.amountCents) },
        'webhook amount does not match the top-up; not credited',
      );
      throw ValidationError.field('amount', 'The amount does not match the top-up.');
    };
    const unknown = (): never => {
      log.warn(context, 'webhook for an unknown payment');
      throw new NotFoundError();
    };

    if (event.status === 'cancelled') {
      const topup = (await findTopupByPayment(this.#ctx.db, gateway.code, event.paymentId)) ?? unknown();
      const id = topup.id;
      if (topup.amount !== event.amountCents) refuseAmount(id, topup.amount);
      const cancelled = await cancelPendingTopup(this.#ctx.db, id);
      const now = (await findTopup(this.#ctx.db, id))!;
      return { topupId: id, status: now.status, duplicate: !cancelled };
    }
    if (event.status === 'pending') {
      const topup = (await findTopupByPayment(this.#ctx.db, gateway.code, event.paymentId)) ?? unknown();
      return { topupId: topup.id, status: topup.status, duplicate: true };
    }

    if (this.#ctx.config.regulation === 'br') {
      const returned = await this.#returnThirdParty(gateway.code, event, refuseAmount, unknown, log);
      if (returned !== undefined) return returned;
    }

    // The amount is part of the exactly-once gate: a mismatch never reaches the ledger.
    const target = { gateway: gateway.code, paymentId: event.paymentId, amount: event.amountCents };
    const outcome = await this.#payByWebhook({ target, via: 'webhook', actorId: null, allowExpired: true });
    if (outcome.outcome === 'paid') {
      // One statement on its own: it has committed by now.
      reportPaid(this.#ctx.money, outcome);
      return { topupId: outcome.topupId, status: TOPUP_STATUS.paid, duplicate: false };
    }
    if (outcome.outcome === 'unknown') return unknown();
    if (outcome.amount !== event.amountCents) return refuseAmount(outcome.topupId, outcome.amount);
    if (outcome.status === TOPUP_STATUS.paid || outcome.status === TOPUP_STATUS.returned)
      return { topupId: outcome.topupId, status: outcome.status, duplicate: true };
    // Paid at the gateway but cancelled here: money arrived for a charge we gave up on.
    log.error({ ...context, topupId: outcome.topupId }, 'payment reported for a cancelled top-up; needs manual review');
    throw new ConflictError('The top-up is cancelled; the payment needs manual review.', 'payment_for_cancelled_topup');
  }

  /**
   * REGULATION=br (docs/api.md section 14): the sandbox's paid notification states the payer's
   * CPF (`payer_cpf`, 422 without it). Another payer's money is not credited: a pending top-up
   * becomes returned (4) with the reason, as an API Pix payment's would (the sandbox moves no real
   * money, so there is nothing to send back); one no longer pending answers where it stands, a
   * replay's answer. Undefined when the payer is the player: the paid path goes on.
   */
  async #returnThirdParty(
    gatewayCode: string,
    event: PaymentEvent,
    refuseAmount: (topupId: number, expected: bigint) => never,
    unknown: () => never,
    log: Logger,
  ): Promise<WebhookResult | undefined> {
    const db = this.#ctx.db;
    const topup = (await findTopupByPayment(db, gatewayCode, event.paymentId)) ?? unknown();
    const refusal = payerRefusal(await statedPayerVerdict(db, 'br', topup.user_id, event.payerCpf));
    if (refusal === undefined) return undefined;
    if (topup.amount !== event.amountCents) refuseAmount(topup.id, topup.amount);
    const returned = await returnPendingTopup(db, topup.id, refusal.text);
    if (returned)
      log.warn({ gateway: gatewayCode, topupId: topup.id, reason: refusal.code }, 'payment not from the player; top-up returned');
    return { topupId: topup.id, status: (await findTopup(db, topup.id))!.status, duplicate: !returned };
  }

  /**
   * One statement outside any transaction, so a deadlock or serialization failure (which
   * rolled all of it back) is tried again, as `transaction()` does for a transaction.
   */
  async #payByWebhook(input: MarkPaidInput) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await markTopupPaid(this.#pay, this.#settings, input);
      } catch (error) {
        if (attempt >= 5 || !isRetryable(error)) throw error;
      }
    }
  }

  /** The amounts with a gift rate of the top-up settings in force (the SPA offers them). */
  async options(): Promise<TopupOption[]> {
    return (await currentTopupSettings(this.#ctx.db, this.#ctx.config.regulation)).settings.options;
  }

  /** The top-up a payment page names; 404 for none. */
  async byPublicId(publicId: string): Promise<TopupRow> {
    const topup = await findTopupByPublicId(this.#ctx.db, publicId);
    if (topup === undefined) throw new NotFoundError();
    return topup;
  }

  /** Until when a pending top-up can be paid (its payment page's countdown). */
  payableUntil(topup: TopupRow): Promise<Date> {
    return topupPayableUntil(this.#ctx.db, topup.id, topup.created_at);
  }

  /**
   * Admin confirm: the one paid path, in the admin's logged transaction; the payment is
   * reported to the metrics once that committed. 404 unknown, 409 not pending, 409 for a charge
   * at a PSP's API Pix (only the PSP's confirmed payment credits it).
   */
  async confirmByAdmin(entry: OperationEntry, topupId: number, payerCpf?: string): Promise<TopupRow> {
    return this.#adminChange(entry, async (tx) => this.#confirm(tx, await this.#existing(tx, topupId), entry.userId, payerCpf));
  }

  /** Admin PUT status: 0→1 (credit, as confirm), 0→2 (cancel); every other transition is a 409. */
  async setStatusByAdmin(entry: OperationEntry, topupId: number, status: number, payerCpf?: string): Promise<TopupRow> {
    return this.#adminChange(entry, async (tx) => {
      const current = await this.#existing(tx, topupId);
      if (status === TOPUP_STATUS.paid) return this.#confirm(tx, current, entry.userId, payerCpf);
      if (status === TOPUP_STATUS.cancelled && (await cancelPendingTopup(tx, topupId))) return { row: (await findTopup(tx, topupId))! };
      const from = TOPUP_STATUSES.nameOf((await findTopup(tx, topupId))!.status);
      throw new ConflictError(`A top-up cannot go from ${from} to ${TOPUP_STATUSES.nameOf(status)}.`, 'invalid_transition');
    });
  }

  async #adminChange(entry: OperationEntry, work: (tx: Db) => Promise<AdminChange>): Promise<TopupRow> {
    const { row, paid } = await loggedTransaction(this.#ctx.db, entry, work);
    if (paid !== undefined) reportPaid(this.#ctx.money, paid);
    return row;
  }

  async #existing(tx: Db, topupId: number): Promise<TopupRow> {
    const current = await findTopup(tx, topupId);
    if (current === undefined) throw new NotFoundError();
    return current;
  }

  /**
   * The one paid path for an admin. Under REGULATION=br (docs/api.md section 14) the operator
   * states the payer's CPF, which must be the player's verified one: 422 on `payer_cpf` otherwise
   * (another payer's money is returned by the bank, never credited here).
   */
  async #confirm(tx: Db, current: TopupRow, adminId: number, payerCpf: string | undefined): Promise<AdminChange> {
    const id = current.id;
    // A charge at a PSP's API Pix is credited by the payment the PSP confirms (a notification, or
    // reconciliation for one it missed). An operator's credit of it would make that payment a
    // second one, returned to the payer: the player kept both. The gateway never changes once the
    // top-up is written, so this read cannot race; pay_topup's status gate does the rest.
    if (isPixGateway(current.gateway)) {
      if (current.status !== TOPUP_STATUS.pending) throw notPendingConflict(current.status);
      throw new ConflictError('The charge is at the PSP: only a payment the PSP confirms can credit this top-up.', 'charge_at_psp');
    }
    switch (await statedPayerVerdict(tx, this.#ctx.config.regulation, current.user_id, payerCpf)) {
      case 'third_party':
        throw ValidationError.field('payer_cpf', 'The payer cpf must be the player’s verified CPF: only their own money is credited.');
      case 'player_unverified':
        throw ValidationError.field('payer_cpf', 'The player has no verified CPF: their top-ups cannot be credited.');
      case 'player':
      case 'unregulated':
    }
    const outcome = await markTopupPaid(preparePayTopup(tx), new SettingsInForce(tx, this.#ctx.config.regulation), {
      target: { id, amount: current.amount },
      via: 'admin',
      actorId: adminId,
      allowExpired: false,
    });
    if (outcome.outcome === 'unknown') throw new NotFoundError();
    if (outcome.outcome === 'not_payable') throw notPendingConflict(outcome.status);
    return { row: (await findTopup(tx, id))!, paid: outcome };
  }
}
