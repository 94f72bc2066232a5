import type { IncomingHttpHeaders } from 'node:http';
import { Registry } from '../../../platform/registry.ts';

/** What we ask a gateway to pay out: one PIX transfer per approved withdrawal. */
export interface PayoutRequest {
  /**
   * Our reference for the payout (the withdrawal's public id). A gateway must treat it as an
   * idempotency key: asking twice with one reference pays once.
   */
  reference: string;
  /** The payment method whose account pays (a gateway configured per method reads its settings by it); null for the built-in sandbox. */
  paymentMethodId: number | null;
  /** What the payee receives: the amount less the fee. */
  amountCents: bigint;
  currency: string;
  payeeName: string;
  /** PIX key type and key, in their canonical form (withdrawals/pix-key.ts). */
  keyType: string;
  key: string;
  /**
   * The payee's CPF where known (a CPF key; every payout under REGULATION=br, where the player's
   * verified CPF is on record): a gateway that can, asks its PSP to refuse a key held by anyone else.
   */
  payeeCpf?: string;
  description: string;
}

/**
 * The PSP refused the payout and holds none under this reference: nothing was paid and nothing
 * will be, so the withdrawal fails and its money returns. Anything else that goes wrong (a
 * timeout, a 5xx, a broken connection) leaves the outcome unknown and is thrown as any other error.
 */
export class PayoutRefusedError extends Error {
  override name = 'PayoutRefusedError';
}

/**
 * What the PSP says of a payout when asked (a status query, never a notification's word):
 * `paid` and `failed` are final; `processing` is not yet; `absent`: it holds none under this
 * reference (the request never arrived), so asking again is safe and pays once.
 */
export interface PayoutReport {
  state: 'paid' | 'failed' | 'processing' | 'absent';
  /** The gateway's payout id (a PIX endToEndId), once it has one. */
  payoutId?: string;
  /** What the PSP says it pays; checked against the withdrawal's net amount. */
  amountCents?: bigint;
  /** Why a payout failed, as the PSP says it. */
  reason?: string | null;
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
 * notification, the PSP's answer to a status query (or an operator who checked) says paid or
 * failed; a timeout is not a failure.
 */
export interface PayoutGateway {
  readonly code: string;
  /**
   * Key types whose owner this gateway checks against `payeeCpf` (its PSP refuses another
   * holder's key). Under REGULATION=br other key types than a CPF key equal to the player's
   * CPF are accepted only through such a gateway; none (the sandbox) means CPF keys only.
   */
  readonly ownerCheckedKeyTypes?: readonly string[];
  /**
   * Called after the approval committed, never inside a transaction. Answers the gateway's payout
   * id; throws PayoutRefusedError when the PSP refused it for good, anything else when unknown.
   */
  requestPayout(request: PayoutRequest): Promise<{ payoutId: string }>;
  /**
   * Authenticates a payout notification of `POST /api/webhooks/payouts/{gateway}` from its raw
   * body and headers (throws WebhookSignatureError). A gateway without it is notified elsewhere
   * (Efí: the PIX notification route, docs/api.md section 13b), and that route answers 404 for it.
   */
  verifyPayoutWebhook?(rawBody: string, headers: IncomingHttpHeaders, now: Date): PayoutEvent;
  /** The PSP's view of a payout (a status query), for notifications to confirm and reconciliation to settle. */
  queryPayout?(request: Pick<PayoutRequest, 'reference' | 'paymentMethodId'>): Promise<PayoutReport>;
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
