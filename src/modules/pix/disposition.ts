import { formatUnits } from '../../platform/money.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import { payerRefusal, type PayerVerdict, type Refusal } from '../topups/own-account.ts';
import { TOPUP_STATUS, TOPUP_STATUSES } from '../topups/repository.ts';

export type { PayerVerdict, Refusal };

/** The top-up a payment names, as stored (status before any expiry by age). */
export interface ChargedTopup {
  id: number;
  userId: number;
  amount: bigint;
  /** The stored status: a pending top-up older than 24 hours is still pending here, and may still be paid. */
  storedStatus: number;
}

export type Disposition = { creditable: true } | { creditable: false; refusal: Refusal };

/**
 * THE rule that decides whether a payment the PSP confirmed may credit its top-up, or must be
 * returned to the payer, and why (docs/api.md section 13). Every payment passes here, whoever
 * brought it (notification or reconciliation). The database holds the decision to the same facts
 * when it applies it (pay_topup's gate), so a top-up that changed since it was read is decided
 * again, never credited twice.
 *
 * Regulated mode (REGULATION=br, docs/api.md section 14) adds its refusal here: a payer whose CPF
 * is not the player's (`payer`, established by payer.ts from the PSP's records) is returned. A
 * top-up that is no longer pending, or another amount, says so first: those would be returned
 * whoever paid.
 */
export function paymentDisposition(payment: ReceivedPix, topup: ChargedTopup, payer: PayerVerdict): Disposition {
  if (topup.storedStatus !== TOPUP_STATUS.pending) {
    const state = TOPUP_STATUSES.nameOf(topup.storedStatus);
    return {
      creditable: false,
      refusal: {
        code: `topup_${state}`,
        text:
          state === 'paid'
            ? 'The top-up was already paid; this second payment was returned to the payer.'
            : `The top-up was already ${state}; the payment was returned to the payer.`,
      },
    };
  }
  if (payment.amount !== topup.amount) {
    return {
      creditable: false,
      refusal: {
        code: 'amount_mismatch',
        text: `The amount paid (${formatUnits(payment.amount)}) is not the top-up's amount (${formatUnits(topup.amount)}); it was returned to the payer.`,
      },
    };
  }
  const refusal = payerRefusal(payer);
  return refusal === undefined ? { creditable: true } : { creditable: false, refusal };
}
