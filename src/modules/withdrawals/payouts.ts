import type { AppContext } from '../../platform/context.ts';
import { retrying } from '../../platform/db/client.ts';
import type { Logger } from '../../platform/logger.ts';
import { loggableError } from '../../platform/log-safety.ts';
import { formatUnits } from '../../platform/money.ts';
import { findIdentity } from '../kyc/repository.ts';
import { readSendNotice } from '../payments/efi/pix-send.ts';
import { PayoutRefusedError, type PayoutGateway, type PayoutGateways, type PayoutReport } from '../payments/gateways/payout.ts';
import {
  attachPayout,
  findWithdrawal,
  findWithdrawalByReference,
  payoutsToReconcile,
  recordPayout,
  transitionWithdrawal,
  type WithdrawalAction,
  type WithdrawalRow,
} from './repository.ts';
import { WITHDRAWAL_STATUS, WITHDRAWAL_STATUSES } from './tables.ts';

/** The status a transition reaches, as the metrics name the outcome. */
const ACTION_OUTCOMES: Record<WithdrawalAction, string> = { approve: 'approved', reject: 'rejected', complete: 'paid', fail: 'failed' };

/** Tells the metrics about a transition that committed: reject and fail wrote the refund of the whole amount. */
export function reportTransition(ctx: AppContext, row: WithdrawalRow, action: WithdrawalAction): void {
  ctx.money.withdrawal(ACTION_OUTCOMES[action]);
  if (action === 'reject' || action === 'fail') ctx.money.ledgerLine('withdrawal_refund', row.amount);
}

/**
 * The payout gateways whose PSP alone settles an approved withdrawal: those it can be asked
 * about (a status query), so an outcome always comes, from a notification or from
 * reconciliation. Once approved through one of them, a withdrawal is the PSP's to settle: an
 * operator's reject, fail or complete would contradict a payout the PSP may make or have made
 * (withdrawal_transition.sql holds the rule). A gateway without a status query (the sandbox)
 * is settled by hand (docs/withdrawals.md, "Reconciling a withdrawal by hand").
 */
export function pspSettledGateways(payouts: PayoutGateways): string[] {
  return payouts.codes().filter((code) => payouts.get(code)?.queryPayout !== undefined);
}

/** Withdrawals one reconciliation pass asks about at most; the rest wait for the next pass (least recently checked first). */
export const RECONCILE_BATCH = 100;

/** What settling a withdrawal by the PSP's word came to. */
export type Settlement = 'paid' | 'failed' | 'duplicate' | 'processing' | 'resent' | 'absent' | 'contradiction';

export interface ReconcileReport {
  checked: number;
  paid: number;
  failed: number;
  /** Asks that failed (logged); the next pass tries them again. */
  failures: number;
}

/**
 * A withdrawal's payout (docs/withdrawals.md, "Paying out"): the request after the approval
 * committed, and its outcome, taken only from an explicit answer: a PSP's status query (which
 * every notification of a send is confirmed by, and reconciliation makes for payouts approved
 * over PIX_PAYOUT_RECONCILE_AFTER_S ago), a gateway's signed notification, or an operator. Paid
 * and failed are the existing complete and fail transitions (withdrawal_transition.sql), exactly
 * once: the refund of a failure has its unique ledger key. An unknown outcome (a timeout, a 5xx)
 * leaves the withdrawal approved with its money held, recorded as unknown.
 */
export class PayoutService {
  readonly #ctx: AppContext;
  readonly #payouts: PayoutGateways;

  constructor(ctx: AppContext, payouts: PayoutGateways) {
    this.#ctx = ctx;
    this.#payouts = payouts;
  }

  /**
   * Asks the withdrawal's payout gateway to pay it; called after the approval committed, never
   * inside a transaction. A payout the PSP refused for good (and holds none of) fails with its
   * refund; whatever else happens (an error, a timeout, a crash before the answer is stored) the
   * withdrawal stays approved and keeps its hold, recorded as unknown.
   */
  async send(row: WithdrawalRow, log: Logger): Promise<WithdrawalRow> {
    const gateway = this.#gatewayOf(row);
    if (gateway === undefined || row.status !== WITHDRAWAL_STATUS.approved || row.payout_id !== null) return row;
    const context = { withdrawalId: row.id, reference: row.public_id, gateway: gateway.code, paymentMethodId: row.payout_method_id };
    try {
      const { payoutId } = await gateway.requestPayout({
        reference: row.public_id,
        paymentMethodId: row.payout_method_id,
        amountCents: row.amount - row.fee,
        currency: row.currency,
        payeeName: row.payee_name,
        keyType: row.account_type,
        key: row.payee_account,
        // A CPF key is the payee's CPF. Under REGULATION=br every payout carries the player's verified CPF (docs/api.md section 14).
        payeeCpf:
          this.#ctx.config.regulation === 'br'
            ? (await findIdentity(this.#ctx.db, row.user_id))?.cpf
            : row.account_type === 'CPF'
              ? row.payee_account
              : undefined,
        description: `Withdrawal #${row.id}`,
      });
      await attachPayout(this.#ctx.db, row.id, payoutId);
      await recordPayout(this.#ctx.db, row.id, { state: 'sent', detail: null });
    } catch (error) {
      if (error instanceof PayoutRefusedError) {
        log.warn({ ...context, reason: error.message }, 'payout refused by the PSP; the withdrawal fails and its money returns');
        await recordPayout(this.#ctx.db, row.id, { state: 'refused', detail: error.message });
        await this.#transition(row, gateway, 'fail', error.message, log);
      } else {
        log.error(
          { ...context, err: loggableError(error) },
          'payout request failed or its outcome is unknown; the withdrawal stays approved until reconciled',
        );
        await recordPayout(this.#ctx.db, row.id, { state: 'unknown', detail: error instanceof Error ? error.message : String(error) });
      }
    }
    return (await findWithdrawal(this.#ctx.db, row.id))!;
  }

  /** Whether a PIX notification's item names a send (`gnExtras.idEnvio`): then it is a payout's, handled here. */
  acceptsNotification(item: unknown): boolean {
    return readSendNotice(item) !== undefined;
  }

  /**
   * An item of a PIX notification to payment method `method` that names a send: confirmed by the
   * status query before anything changes (a notification is never proof); an item for a payout
   * this method did not send for us is logged and ignored. A failed question throws: the caller
   * logs it, and reconciliation settles the payout later.
   */
  async handleNotification(method: { id: number; code: string }, item: unknown, log: Logger): Promise<Settlement | undefined> {
    const notice = readSendNotice(item);
    if (notice === undefined) return undefined;
    const row = await findWithdrawalByReference(this.#ctx.db, notice.idEnvio);
    if (row === undefined || row.payout_method_id !== method.id) {
      log.warn(
        { paymentMethodId: method.id, code: method.code, idEnvio: notice.idEnvio },
        'notification of a send this method did not make for us; ignored',
      );
      return undefined;
    }
    return this.check(row, log, { resend: false, reason: notice.reason });
  }

  /**
   * Reconciliation (docs/withdrawals.md): asks the PSP about every approved withdrawal paid
   * through a gateway that answers status queries and approved at least
   * PIX_PAYOUT_RECONCILE_AFTER_S before `now`, and settles what it answers; a payout the PSP never
   * received is sent again (the same idEnvio: it pays once).
   */
  async reconcile(now: Date, log: Logger): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, paid: 0, failed: 0, failures: 0 };
    const gateways = pspSettledGateways(this.#payouts);
    const before = new Date(now.getTime() - this.#ctx.config.pixPayoutReconcileAfterS * 1000);
    for (const row of await payoutsToReconcile(this.#ctx.db, gateways, before, RECONCILE_BATCH)) {
      report.checked += 1;
      try {
        const settled = await this.check(row, log, { resend: true, checkedAt: now });
        if (settled === 'paid') report.paid += 1;
        if (settled === 'failed') report.failed += 1;
      } catch (error) {
        report.failures += 1;
        log.error(
          { withdrawalId: row.id, reference: row.public_id, err: loggableError(error) },
          'payout reconciliation: the PSP could not be asked; the next pass tries again',
        );
      }
    }
    return report;
  }

  /** Asks the PSP about one withdrawal's payout and settles by its answer. */
  async check(row: WithdrawalRow, log: Logger, options: { resend: boolean; reason?: string; checkedAt?: Date }): Promise<Settlement> {
    const gateway = this.#gatewayOf(row);
    if (gateway?.queryPayout === undefined) throw new Error(`gateway ${row.payout_gateway} answers no status query`);
    const report = await gateway.queryPayout({ reference: row.public_id, paymentMethodId: row.payout_method_id });
    if (options.checkedAt !== undefined) await recordPayout(this.#ctx.db, row.id, { checkedAt: options.checkedAt });
    return this.#settle(row, gateway, report, log, options);
  }

  async #settle(
    row: WithdrawalRow,
    gateway: PayoutGateway,
    report: PayoutReport,
    log: Logger,
    options: { resend: boolean; reason?: string },
  ): Promise<Settlement> {
    const context = { withdrawalId: row.id, reference: row.public_id, gateway: gateway.code, reported: report.state };
    const net = row.amount - row.fee;
    if (report.amountCents !== undefined && report.amountCents !== net) {
      log.error(
        { ...context, expected: formatUnits(net), reportedAmount: formatUnits(report.amountCents) },
        'the PSP reports another amount for this payout; nothing changed, needs manual review',
      );
      return 'contradiction';
    }
    if (report.payoutId !== undefined && row.payout_id === null) await attachPayout(this.#ctx.db, row.id, report.payoutId);
    switch (report.state) {
      case 'processing':
        if (row.status === WITHDRAWAL_STATUS.approved) await recordPayout(this.#ctx.db, row.id, { state: 'sent' });
        return 'processing';
      case 'absent':
        if (row.status !== WITHDRAWAL_STATUS.approved) return 'absent';
        if (!options.resend) {
          log.warn(context, 'a notification named a send the PSP does not hold; ignored');
          return 'absent';
        }
        log.warn(context, 'the PSP holds no such payout (the request never arrived): sent again under the same idEnvio');
        await this.send({ ...row, payout_id: null }, log);
        return 'resent';
      case 'paid':
        return this.#transition(row, gateway, 'complete', null, log);
      case 'failed':
        return this.#transition(row, gateway, 'fail', report.reason ?? options.reason ?? 'The PSP could not make the payout.', log);
    }
  }

  /** complete or fail as the gateway (no actor), exactly once: a replay finds the status reached; a contradiction is logged for review. */
  async #transition(
    row: WithdrawalRow,
    gateway: PayoutGateway,
    action: 'complete' | 'fail',
    reason: string | null,
    log: Logger,
  ): Promise<Settlement> {
    const outcome = await retrying(() =>
      transitionWithdrawal(this.#ctx.db, { id: row.id, action, actorId: null, reason, gateway: gateway.code, pspGateways: [] }),
    );
    const settled = action === 'complete' ? 'paid' : 'failed';
    if (outcome.outcome === 'done') {
      reportTransition(this.#ctx, row, action);
      return settled;
    }
    const target = action === 'complete' ? WITHDRAWAL_STATUS.paid : WITHDRAWAL_STATUS.failed;
    if (outcome.outcome === 'conflict' && outcome.status === target) return 'duplicate';
    log.error(
      {
        withdrawalId: row.id,
        reference: row.public_id,
        gateway: gateway.code,
        status: outcome.outcome === 'conflict' ? WITHDRAWAL_STATUSES.nameOf(outcome.status) : 'unknown',
        reported: settled,
      },
      'the PSP’s payout outcome contradicts the withdrawal status; needs manual review',
    );
    return 'contradiction';
  }

  #gatewayOf(row: WithdrawalRow): PayoutGateway | undefined {
    return row.payout_gateway === null ? undefined : this.#payouts.get(row.payout_gateway);
  }
}
