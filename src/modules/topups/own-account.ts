import type { Regulation } from '../../config.ts';
import type { Db } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import { findIdentity } from '../kyc/repository.ts';
import { cpfDigits } from '../withdrawals/pix-key.ts';

/**
 * Whose money a payment is, as far as crediting it goes: `unregulated` (REGULATION=none: nobody
 * asks), `player` (the gateway showed the payer's CPF is the player's verified one),
 * `third_party` (it showed another payer), `player_unverified` (the player holds no verified CPF
 * to compare with: top-ups are created only by verified players, so only an identity changed
 * since could bring it, and money nobody can show is the player's own is not credited).
 */
export type PayerVerdict = 'unregulated' | 'player' | 'third_party' | 'player_unverified';

/** Why a payment goes back to its payer: a code (pix_payments.reason), a sentence (the top-up's `reason`). */
export interface Refusal {
  code: string;
  text: string;
}

/**
 * REGULATION=br (docs/api.md section 14; Portaria SPA/MF 615: deposits only from an account the
 * bettor holds): the refusal a payer's verdict brings, if any. The API Pix path
 * (src/modules/pix/disposition.ts) and the sandbox's webhook (service.ts) return through it,
 * with the same words.
 */
export function payerRefusal(verdict: PayerVerdict): Refusal | undefined {
  switch (verdict) {
    case 'unregulated':
    case 'player':
      return undefined;
    case 'third_party':
      return {
        code: 'third_party_payer',
        text: 'The payment came from someone other than the player (the payer’s CPF is not the player’s); it was returned to the payer.',
      };
    case 'player_unverified':
      return {
        code: 'player_unverified',
        text: 'The player has no verified CPF, so the payment cannot be shown to be their own; it was returned to the payer.',
      };
  }
}

/** The verified CPF of a top-up's player, or undefined when they hold none (any longer). */
export async function verifiedCpf(db: Db, userId: number): Promise<string | undefined> {
  const identity = await findIdentity(db, userId);
  return identity?.status === 'verified' ? identity.cpf : undefined;
}

/**
 * The verdict on a payer's CPF that a caller states (the sandbox's webhook `payer_cpf`, an
 * admin's confirm), under `regulation`: required and a valid CPF under br, 422 on `payer_cpf`
 * otherwise; ignored under none.
 */
export async function statedPayerVerdict(
  db: Db,
  regulation: Regulation,
  userId: number,
  stated: string | undefined,
): Promise<PayerVerdict> {
  if (regulation !== 'br') return 'unregulated';
  const cpf = requiredPayerCpf(stated);
  const players = await verifiedCpf(db, userId);
  if (players === undefined) return 'player_unverified';
  return cpf === players ? 'player' : 'third_party';
}

/** `payer_cpf` as REGULATION=br requires it: present and a valid CPF (punctuation allowed); its 11 digits. */
export function requiredPayerCpf(stated: string | undefined): string {
  if (stated === undefined || stated.trim() === '') throw ValidationError.field('payer_cpf', 'The payer cpf field is required.');
  const cpf = cpfDigits(stated);
  if (cpf === undefined) throw ValidationError.field('payer_cpf', 'The payer cpf is not a valid CPF.');
  return cpf;
}
