import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { randomAlphanumeric } from '../../../platform/crypto.ts';
import { ValidationError } from '../../../platform/errors.ts';
import { signBody, verifySignedBody } from '../../../platform/signature.ts';
import { moneyProblem } from '../../../platform/money.ts';
import { buildBrCode } from '../brcode.ts';
import { type Charge, type ChargeRequest, type PaymentEvent, type PaymentGateway, type PaymentStatus } from './gateway.ts';
import type { PayoutEvent, PayoutGateway, PayoutRequest, PayoutStatus } from './payout.ts';

const STATUSES: Record<string, PaymentStatus> = { paid: 'paid', cancelled: 'cancelled', canceled: 'cancelled', failed: 'cancelled' };
const PAYOUT_STATUSES: Record<string, PayoutStatus> = { paid: 'paid', failed: 'failed' };

export interface SandboxOptions {
  secret: string;
  pixKey: string;
  merchantName: string;
  merchantCity: string;
}

/** `X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (docs/api.md section 11). */
export const sandboxSignature = signBody;

function objectBody(rawBody: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The built-in gateway: it issues real, payable-looking PIX BR Codes for our key and learns of
 * payments only through its signed webhook (paying is simulated by posting that webhook). It
 * accepts payouts and never completes one by itself: an operator, or a signed payout
 * notification, says how each ended.
 */
export class SandboxGateway implements PaymentGateway, PayoutGateway {
  readonly code = 'sandbox';
  readonly #options: SandboxOptions;

  constructor(options: SandboxOptions) {
    this.#options = options;
  }

  async createCharge(request: ChargeRequest): Promise<Charge> {
    // The payment id doubles as the BR Code's txid, so a bank statement line names the charge.
    const paymentId = `SBX${randomAlphanumeric(22)}`;
    const qrCode = buildBrCode({
      pixKey: this.#options.pixKey,
      merchantName: this.#options.merchantName,
      merchantCity: this.#options.merchantCity,
      amountCents: request.amountCents,
      txid: paymentId,
    });
    return { paymentId, qrCode };
  }

  verifyWebhook(rawBody: string, headers: IncomingHttpHeaders, now: Date): PaymentEvent {
    this.#verifySignature(rawBody, headers, now);
    return this.#event(rawBody);
  }

  #verifySignature(rawBody: string, headers: IncomingHttpHeaders, now: Date): void {
    verifySignedBody(rawBody, headers, this.#options.secret, now);
  }

  #event(rawBody: string): PaymentEvent {
    const body = objectBody(rawBody);
    const errors: Record<string, string[]> = {};
    const paymentId = body.payment_id;
    if (typeof paymentId !== 'string' || paymentId === '' || paymentId.length > 100)
      errors.payment_id = ['The payment id field is required.'];
    const status = typeof body.status === 'string' ? STATUSES[body.status.toLowerCase()] : undefined;
    if (status === undefined) errors.status = ['The selected status is invalid.'];
    const amount = body.amount === undefined ? 'The amount field is required.' : moneyProblem('amount', body.amount, { min: 1n });
    if (typeof amount === 'string') errors.amount = [amount];
    const payerCpf = body.payer_cpf;
    if (payerCpf !== undefined && payerCpf !== null && (typeof payerCpf !== 'string' || payerCpf.length > 20))
      errors.payer_cpf = ['The payer cpf must be a string of at most 20 characters.'];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return {
      paymentId: paymentId as string,
      status: status!,
      amountCents: (amount as { cents: bigint }).cents,
      payerCpf: typeof payerCpf === 'string' ? payerCpf : undefined,
    };
  }

  /** Stateless and idempotent: one reference always gets one payout id. */
  async requestPayout(request: PayoutRequest): Promise<{ payoutId: string }> {
    const digest = createHmac('sha256', this.#options.secret).update(`payout:${request.reference}`).digest('hex');
    return { payoutId: `SBXP${digest.slice(0, 28).toUpperCase()}` };
  }

  /** `{"reference": "<withdrawal reference>", "status": "paid" | "failed", "amount": <net amount>, "reason"?: "..."}`. */
  verifyPayoutWebhook(rawBody: string, headers: IncomingHttpHeaders, now: Date): PayoutEvent {
    this.#verifySignature(rawBody, headers, now);
    const body = objectBody(rawBody);
    const errors: Record<string, string[]> = {};
    const reference = body.reference;
    if (typeof reference !== 'string' || reference === '' || reference.length > 100)
      errors.reference = ['The reference field is required.'];
    const status = typeof body.status === 'string' ? PAYOUT_STATUSES[body.status.toLowerCase()] : undefined;
    if (status === undefined) errors.status = ['The selected status is invalid.'];
    const amount = body.amount === undefined ? 'The amount field is required.' : moneyProblem('amount', body.amount, { min: 1n });
    if (typeof amount === 'string') errors.amount = [amount];
    const reason = body.reason;
    if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason.length > 255))
      errors.reason = ['The reason field must be a string of at most 255 characters.'];
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    return {
      reference: reference as string,
      status: status!,
      amountCents: (amount as { cents: bigint }).cents,
      reason: typeof reason === 'string' && reason.trim() !== '' ? reason.trim() : null,
    };
  }

  /** The sandbox keeps no remote state: a payment exists only as its signed webhook. */
  async queryStatus(_paymentId: string): Promise<PaymentStatus | 'unknown'> {
    return 'unknown';
  }
}
