import type { IncomingHttpHeaders } from 'node:http';
import { Registry } from '../../../platform/registry.ts';

/** What we ask a gateway to pay out: one PIX transfer per approved withdrawal. */
export interface PayoutRequest {
  /**
   * Our reference for the payout (the withdrawal's public id). A gateway must treat it as an
   * idempotency key: asking twice with one reference pays once.
   */
  reference: string;
  /** What the payee receives: the amount less the fee. */
  amountCents: bigint;
  currency: string;
  payeeName: string;
  /** PIX key type and key, in their canonical form (withdrawals/pix-key.ts). */
  keyType: string;
  key: string;
  description: string;
}

export type PayoutStatus = 'paid' | 'failed';

/** A verified payout notification, mapped to our terms. */
export interface PayoutEvent {
  reference: string;
  status: PayoutStatus;
  amountCents: bigint;
  /** Why a payout failed, as the gateway says it. */
  reason: string | null;
}

/**
 * One gateway that pays out. Sending a payout says nothing about its outcome: only a signed
 * notification (or an operator who checked) says paid or failed; a timeout is not a failure.
 */
export interface PayoutGateway {
  readonly code: string;
  /** Called after the approval committed, never inside a transaction. Answers the gateway's payout id. */
  requestPayout(request: PayoutRequest): Promise<{ payoutId: string }>;
  /** Authenticates a payout notification from its raw body and headers (throws WebhookSignatureError). */
  verifyPayoutWebhook(rawBody: string, headers: IncomingHttpHeaders, now: Date): PayoutEvent;
}

/** The payout gateways this instance knows, by code, and the one approvals pay through. */
export class PayoutGateways extends Registry<PayoutGateway> {
  #default: string;

  constructor(gateways: PayoutGateway[], defaultCode: string) {
    super(gateways);
    this.#default = defaultCode;
  }

  override register(gateway: PayoutGateway, asDefault = false): void {
    super.register(gateway);
    if (asDefault) this.#default = gateway.code;
  }

  /** The gateway a new approval pays through. */
  current(): PayoutGateway {
    const gateway = this.get(this.#default);
    if (gateway === undefined) throw new Error(`No payout gateway "${this.#default}" is registered.`);
    return gateway;
  }
}
