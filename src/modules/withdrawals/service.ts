import type { IncomingHttpHeaders } from 'node:http';
import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import { sha256 } from '../../platform/crypto.ts';
import { retrying } from '../../platform/db/client.ts';
import { ConflictError, IdentityNotVerifiedError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { Logger } from '../../platform/logger.ts';
import { FieldCheck, formatUnits, percentOf } from '../../platform/money.ts';
import type { PayoutGateways } from '../payments/gateways/payout.ts';
import { InForce } from '../settings/in-force.ts';
import { currentWithdrawSettings } from '../settings/repository.ts';
import { playerRefusal } from '../wallet/ledger.ts';
import { findIdentity } from '../kyc/repository.ts';
import { ownAccountRefusals } from './own-account.ts';
import type { PayoutMethodService } from './payout-method.ts';
import { pspSettledGateways, reportTransition, type PayoutService } from './payouts.ts';
import { normalizePixKey, type PixKeyType } from './pix-key.ts';
import { limitRefusals } from './refusals.ts';
import {
  findAdminWithdrawal,
  findWithdrawal,
  findWithdrawalByReference,
  prepareRequestWithdrawal,
  setPayoutMethod,
  transitionWithdrawal,
  type AdminWithdrawalRow,
  type RequestOutcomeRow,
  type RequestWithdrawalStatement,
  type WithdrawalAction,
  type WithdrawalRow,
} from './repository.ts';
import { WITHDRAWAL_STATUS, WITHDRAWAL_STATUSES } from './tables.ts';

/** A settings change between reading and requesting makes `request_withdrawal` answer `stale`. */
const SETTINGS_ATTEMPTS = 5;

const ACTION_VERBS: Record<WithdrawalAction, string> = { approve: 'approved', reject: 'rejected', complete: 'completed', fail: 'failed' };

export interface WithdrawalRequest {
  userId: number;
  payeeName: string;
  accountType: PixKeyType;
  payeeAccount: string;
  amount: unknown;
  /** The Idempotency-Key the client sent (platform/http/idempotency-key.ts), if any. */
  idempotencyKey: string | undefined;
}

export interface PayoutWebhookResult {
  withdrawalId: number;
  status: number;
  /** True when the notification changed nothing (a replay, or a state already reached). */
  duplicate: boolean;
}

/**
 * Withdrawal rules (docs/withdrawals.md): the request that holds the money, the review
 * transitions and the payout, which is asked for after the approval committed and completed
 * or failed only by an explicit answer.
 */
export class WithdrawalService {
  readonly #ctx: AppContext;
  readonly #payouts: PayoutGateways;
  readonly #payoutMethod: PayoutMethodService;
  readonly #payout: PayoutService;
  readonly #request: RequestWithdrawalStatement;
  readonly #settings: InForce<Awaited<ReturnType<typeof currentWithdrawSettings>>>;

  constructor(ctx: AppContext, payouts: PayoutGateways, payoutMethod: PayoutMethodService, payout: PayoutService) {
    this.#ctx = ctx;
    this.#payouts = payouts;
    this.#payoutMethod = payoutMethod;
    this.#payout = payout;
    this.#request = prepareRequestWithdrawal(ctx.db);
    this.#settings = new InForce(() => currentWithdrawSettings(ctx.db));
  }

  /**
   * Checks every limit and holds the whole amount in one database call, so two requests never
   * spend the same money; the loser of a race gets the 422 on `amount`. With an Idempotency-Key,
   * a retry answers the first withdrawal.
   */
  async request(input: WithdrawalRequest): Promise<{ withdrawal: WithdrawalRow; replayed: boolean }> {
    const check = new FieldCheck();
    const amount = check.money('amount', input.amount, { min: 1n });
    const key = normalizePixKey(input.accountType, input.payeeAccount);
    if ('error' in key) check.add('payee_account', key.error);
    const requestKey = input.idempotencyKey;
    check.throwIfFailed();
    const payeeAccount = (key as { key: string }).key;
    if (this.#ctx.config.regulation === 'br') await this.#ownAccount(input, payeeAccount);
    const digest =
      requestKey === undefined ? null : sha256(JSON.stringify([input.payeeName, input.accountType, payeeAccount, String(amount)]));

    for (let attempt = 1; attempt <= SETTINGS_ATTEMPTS; attempt++) {
      const seen = this.#settings.get();
      const { id: settingsId, settings } = await seen;
      const fee = percentOf(amount, settings.feeRate);
      if (fee >= amount) {
        // Refused without asking the database, so only on settings known to be in force: the
        // ones kept from an earlier request may have been replaced since.
        if (attempt === 1) {
          this.#settings.replaced(seen);
          continue;
        }
        throw ValidationError.field('amount', `The amount must be greater than its fee of ${formatUnits(fee)}.`);
      }
      let row: RequestOutcomeRow;
      try {
        [row] = (await retrying(() =>
          this.#request.execute({
            userId: input.userId,
            currency: this.#ctx.config.defaultCurrency,
            payeeName: input.payeeName,
            accountType: input.accountType,
            payeeAccount,
            amount,
            fee,
            settingsId,
            minForPlayer: settings.minAmountForPlayer,
            minForPartner: settings.minAmountForPartner,
            totalBet: settings.totalBet,
            referredUsers: settings.referredUsersCount,
            totalToppedUp: settings.totalToppedUp,
            requestKey: requestKey ?? null,
            requestDigest: digest,
          }),
        )) as [RequestOutcomeRow];
      } catch (error) {
        throw playerRefusal(error) ?? error;
      }
      switch (row.outcome) {
        case 'created':
          // One statement on its own: the hold has committed.
          this.#ctx.money.withdrawal('requested');
          this.#ctx.money.ledgerLine('withdrawal', -amount);
          return { withdrawal: row.withdrawal!, replayed: false };
        case 'replayed':
          return { withdrawal: row.withdrawal!, replayed: true };
        case 'key_reused':
          throw ValidationError.field('idempotency_key', 'The Idempotency-Key was already used for a different withdrawal request.');
        case 'refused':
          throw new ValidationError({ amount: limitRefusals(row) });
        case 'stale':
          this.#settings.replaced(seen);
      }
    }
    throw new Error('Withdrawal settings kept changing during a request.');
  }

  /**
   * An operator approves a pending withdrawal: the transition in their logged transaction (with
   * the payout method chosen in PUT /api/admin/settings/payouts, read there), the metrics once it
   * committed, then the payout request (never inside the transaction: it is a network call). 404
   * unknown, 409 from another state.
   */
  async approve(entry: OperationEntry, id: number, log: Logger): Promise<AdminWithdrawalRow> {
    await this.#payout.send(await this.#review(entry, id, 'approve', null), log);
    return this.#adminRecord(id);
  }

  /** An operator completes, rejects or fails a withdrawal: as `approve`, without a payout to ask for. */
  async review(
    entry: OperationEntry,
    id: number,
    action: Exclude<WithdrawalAction, 'approve'>,
    reason: string | null,
  ): Promise<AdminWithdrawalRow> {
    await this.#review(entry, id, action, reason);
    return this.#adminRecord(id);
  }

  /** The record an operator's action answers: the list's row, so the back office updates it in place (docs/api.md section 8). */
  async #adminRecord(id: number): Promise<AdminWithdrawalRow> {
    return (await findAdminWithdrawal(this.#ctx.db, id))!;
  }

  /** REGULATION=br: the player's own key and verified name (own-account.ts), or a 422 by field. */
  async #ownAccount(input: WithdrawalRequest, payeeAccount: string): Promise<void> {
    const identity = await findIdentity(this.#ctx.db, input.userId);
    // The route's guard let only a verified player through; a change since is the same refusal.
    if (identity?.status !== 'verified') throw new IdentityNotVerifiedError();
    const refusals = ownAccountRefusals({ ...input, payeeAccount }, identity, this.#payouts.current());
    if (Object.keys(refusals).length > 0) throw new ValidationError(refusals);
  }

  async #review(entry: OperationEntry, id: number, action: WithdrawalAction, reason: string | null): Promise<WithdrawalRow> {
    const row = await loggedTransaction(this.#ctx.db, entry, async (tx) => {
      const payout = action === 'approve' ? await this.#payoutMethod.forApproval(tx) : undefined;
      const outcome = await transitionWithdrawal(tx, {
        id,
        action,
        actorId: entry.userId,
        reason,
        gateway: payout?.gateway ?? null,
        pspGateways: pspSettledGateways(this.#payouts),
      });
      if (outcome.outcome === 'unknown') throw new NotFoundError();
      // The PSP holds the payout (sent, or its outcome unknown): its outcome, and only that, settles it.
      if (outcome.outcome === 'psp_settles')
        throw new ConflictError('The payout was sent to the PSP: only its outcome can settle this withdrawal.', 'payout_at_psp');
      if (outcome.outcome === 'conflict') {
        const from = WITHDRAWAL_STATUSES.nameOf(outcome.status);
        throw new ConflictError(`A withdrawal that is ${from} cannot be ${ACTION_VERBS[action]}.`, 'invalid_transition');
      }
      if (payout?.paymentMethodId !== undefined && payout.paymentMethodId !== null) await setPayoutMethod(tx, id, payout.paymentMethodId);
      return (await findWithdrawal(tx, id))!;
    });
    reportTransition(this.#ctx, row, action);
    return row;
  }

  /** A gateway's payout notification: authenticated, matched to its withdrawal, applied at most once. */
  async handlePayoutWebhook(gatewayCode: string, rawBody: string, headers: IncomingHttpHeaders, log: Logger): Promise<PayoutWebhookResult> {
    const gateway = this.#payouts.get(gatewayCode);
    // A gateway notified elsewhere (Efí: the PIX notification route) has no payout webhook here.
    if (gateway?.verifyPayoutWebhook === undefined) throw new NotFoundError();
    const event = gateway.verifyPayoutWebhook(rawBody, headers, new Date());
    const context = { gateway: gateway.code, reference: event.reference };
    const row = await findWithdrawalByReference(this.#ctx.db, event.reference);
    // Another gateway's payout is not this one's to report: unknown here, as a reference never made.
    if (row === undefined || (row.payout_gateway !== null && row.payout_gateway !== gateway.code)) {
      log.warn(context, 'payout notification for an unknown withdrawal');
      throw new NotFoundError();
    }
    const net = row.amount - row.fee;
    if (event.amountCents !== net) {
      log.error(
        { ...context, withdrawalId: row.id, expected: formatUnits(net), received: formatUnits(event.amountCents) },
        'payout notification amount does not match the withdrawal; ignored',
      );
      throw ValidationError.field('amount', 'The amount does not match the withdrawal.');
    }

    // Never approved (pending, or rejected from pending): no payout was asked for, yet one is reported.
    if (row.payout_gateway === null) throw contradiction(log, { ...context, withdrawalId: row.id }, row.status, event.status);

    const action = event.status === 'paid' ? 'complete' : 'fail';
    const target = event.status === 'paid' ? WITHDRAWAL_STATUS.paid : WITHDRAWAL_STATUS.failed;
    const reason = event.reason ?? 'The payout failed at the gateway.';
    const outcome = await retrying(() =>
      transitionWithdrawal(this.#ctx.db, { id: row.id, action, actorId: null, reason, gateway: gateway.code, pspGateways: [] }),
    );
    if (outcome.outcome === 'unknown') throw new NotFoundError();
    if (outcome.outcome === 'done') {
      reportTransition(this.#ctx, row, action);
      return { withdrawalId: row.id, status: outcome.status, duplicate: false };
    }
    if (outcome.status === target) return { withdrawalId: row.id, status: outcome.status, duplicate: true };
    throw contradiction(log, { ...context, withdrawalId: row.id }, outcome.status, event.status);
  }
}

/** A payout notification the withdrawal's status contradicts: a 409, and an error line for an operator to review. */
function contradiction(log: Logger, context: Record<string, unknown>, status: number, reported: string): ConflictError {
  log.error({ ...context, status, reported }, 'payout notification contradicts the withdrawal status; needs manual review');
  return new ConflictError(
    `The withdrawal is ${WITHDRAWAL_STATUSES.nameOf(status)}; the payout notification needs manual review.`,
    'payout_contradicts_status',
  );
}
