import { createHash } from 'node:crypto';
import type { Charge, ChargeRequest, PaymentGateway } from '../gateways/gateway.ts';
import type { PixGateway } from './config.ts';
import { PixApiError } from './errors.ts';
import type { PixMethods } from './methods.ts';
import type { Charge as Cob } from './wire.ts';

/**
 * The charge's txid, derived from the top-up's reference: 26 to 35 letters and digits (API Pix's
 * TxId), the same for every attempt at the same top-up, so a retried create is the same charge.
 */
export function chargeTxid(reference: string): string {
  // Hashed, so the payment page's unguessable id never reaches the payer's bank statement.
  return `crp${createHash('sha256').update(`croupier:charge:${reference}`).digest('hex').slice(0, 29)}`;
}

export class UnusableChargeError extends Error {
  override name = 'UnusableChargeError';
}

/**
 * Charges through a PSP's API Pix (`pix-api`, and `efi`'s charges): `PUT /cob/{txid}` with the
 * method's key, the amount and its expiry; the top-up's `qr_code` is the answer's
 * `pixCopiaECola`. Payments are learnt from notifications and reconciliation (src/modules/pix),
 * never from this gateway's own webhook route.
 */
export class PixApiGateway implements PaymentGateway {
  readonly code: PixGateway;
  readonly #methods: PixMethods;

  constructor(code: PixGateway, methods: PixMethods) {
    this.code = code;
    this.#methods = methods;
  }

  async createCharge(request: ChargeRequest): Promise<Charge> {
    const method = await this.#methods.byId(request.paymentMethodId);
    if (method === undefined || method.gateway !== this.code)
      throw new UnusableChargeError(`payment method ${request.paymentMethodId} has no usable ${this.code} configuration`);
    const { client, config } = method;
    const txid = chargeTxid(request.reference);
    let cob: Cob;
    try {
      cob = await client.createCharge({ txid, amount: request.amountCents, expiresIn: config.expiresIn, message: request.description });
    } catch (error) {
      if (!(error instanceof PixApiError)) throw error;
      // The create may have landed (a timeout, a lost answer) or been made before (a txid in use):
      // the same txid is the same charge, so ask for it; if there is none, the first error stands.
      cob = await client.charge(txid).catch(() => {
        throw error;
      });
    }
    if (cob.txid !== txid || cob.amount !== request.amountCents || cob.status !== 'ATIVA' || cob.copyAndPaste === undefined)
      throw new UnusableChargeError(`the PSP answered a charge that is not the one asked for (status ${cob.status})`);
    return { paymentId: txid, qrCode: cob.copyAndPaste, expiresAt: new Date(cob.createdAt.getTime() + cob.expiresIn * 1000) };
  }
}
