import type { IncomingHttpHeaders } from 'node:http';
import { DomainError } from '../../../platform/errors.ts';

/** What we ask a gateway to collect: one charge per top-up. */
export interface ChargeRequest {
  /** Our reference for the charge (the top-up's public id). */
  reference: string;
  amountCents: bigint;
  currency: string;
  description: string;
}

export interface Charge {
  /** The gateway's id of the payment: webhooks name it, top-ups are unique on it. */
  paymentId: string;
  /** PIX copy-and-paste text (a BR Code). */
  qrCode: string;
}

export type PaymentStatus = 'pending' | 'paid' | 'cancelled';

/** A verified notification, mapped to our terms. */
export interface PaymentEvent {
  paymentId: string;
  status: PaymentStatus;
  amountCents: bigint;
}

/**
 * One payment service provider. Adapters translate their wire format and signatures; the
 * top-up rules (amount check, exactly-once credit) stay in the top-up service.
 */
export interface PaymentGateway {
  readonly code: string;
  /** Called outside any database transaction: it is a network call. */
  createCharge(request: ChargeRequest): Promise<Charge>;
  /**
   * Authenticates a webhook from its raw body and headers (throws WebhookSignatureError) and maps
   * it to an event (throws ValidationError on a body it cannot read).
   */
  verifyWebhook(rawBody: string, headers: IncomingHttpHeaders, now: Date): PaymentEvent;
  /** The provider's view of a payment, for reconciliation. */
  queryStatus(paymentId: string): Promise<PaymentStatus | 'unknown'>;
}

/** 401: a webhook whose signature or timestamp does not check out. */
export class WebhookSignatureError extends DomainError {
  readonly status = 401;
  constructor() {
    super('Invalid signature.');
  }
}

/** 502: the gateway failed or answered something unusable; nothing was charged on our side. */
export class GatewayUnavailableError extends DomainError {
  readonly status = 502;
  constructor() {
    super('The payment gateway is unavailable. Please try again later.');
  }
}

/** The gateways this instance knows, by code. */
export class PaymentGateways {
  readonly #byCode = new Map<string, PaymentGateway>();

  constructor(gateways: PaymentGateway[] = []) {
    for (const gateway of gateways) this.register(gateway);
  }

  register(gateway: PaymentGateway): void {
    this.#byCode.set(gateway.code, gateway);
  }

  get(code: string): PaymentGateway | undefined {
    return this.#byCode.get(code);
  }

  codes(): string[] {
    return [...this.#byCode.keys()];
  }
}
