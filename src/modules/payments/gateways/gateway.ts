import type { IncomingHttpHeaders } from 'node:http';
import { Registry } from '../../../platform/registry.ts';

/** What we ask a gateway to collect: one charge per top-up. */
export interface ChargeRequest {
  /** Our reference for the charge (the top-up's public id). */
  reference: string;
  /** The payment method charged: a gateway configured per method (API Pix) reads its settings by it. */
  paymentMethodId: number;
  amountCents: bigint;
  currency: string;
  description: string;
}

export interface Charge {
  /** The gateway's id of the payment: webhooks name it, top-ups are unique on it. */
  paymentId: string;
  /** PIX copy-and-paste text (a BR Code). */
  qrCode: string;
  /** When the charge stops being payable, if the gateway says. */
  expiresAt?: Date;
}

export type PaymentStatus = 'pending' | 'paid' | 'cancelled';

/** A verified notification, mapped to our terms. */
export interface PaymentEvent {
  paymentId: string;
  status: PaymentStatus;
  amountCents: bigint;
  /**
   * The payer's CPF as the gateway states it (the sandbox's `payer_cpf`), unchecked here: under
   * REGULATION=br the top-up service requires it and compares it with the player's.
   */
  payerCpf?: string | undefined;
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
   * Authenticates a notification of the signed webhook route (`/api/webhooks/payments/{gateway}`,
   * docs/api.md section 9) from its raw body and headers (throws WebhookSignatureError) and maps
   * it to an event (throws ValidationError on a body it cannot read). A gateway without it is
   * notified elsewhere (API Pix: docs/api.md section 13), and that route answers 404 for it.
   */
  verifyWebhook?(rawBody: string, headers: IncomingHttpHeaders, now: Date): PaymentEvent;
  /** The provider's view of a payment, for reconciliation. */
  queryStatus?(paymentId: string): Promise<PaymentStatus | 'unknown'>;
}

/** The payment gateways this instance knows, by code. */
export class PaymentGateways extends Registry<PaymentGateway> {}
