import anyAscii from 'any-ascii';
import type { PayoutGateway } from '../payments/gateways/payout.ts';
import type { PixKeyType } from './pix-key.ts';

/** A name as compared with the verified one: no accents, no case, no spaces ("José  da Silva" = "JOSE DASILVA"). */
export function comparableName(name: string): string {
  return anyAscii(name)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/**
 * REGULATION=br (docs/api.md section 14; Portaria SPA/MF 615: prizes only to an account the
 * bettor holds): the withdrawal's refusals, by field, against the player's verified identity.
 * A CPF key must be the player's CPF; another key type only through a payout gateway that has
 * its PSP check the key's owner against the player's CPF (`ownerCheckedKeyTypes`), which the
 * sandbox does not.
 */
export function ownAccountRefusals(
  request: { payeeName: string; accountType: PixKeyType; payeeAccount: string },
  identity: { cpf: string; fullName: string },
  gateway: Pick<PayoutGateway, 'ownerCheckedKeyTypes'>,
): Record<string, string[]> {
  const refusals: Record<string, string[]> = {};
  if (comparableName(request.payeeName) !== comparableName(identity.fullName)) {
    refusals.payee_name = ['The payee name must be your verified full name.'];
  }
  if (request.accountType === 'CPF') {
    if (request.payeeAccount !== identity.cpf) refusals.payee_account = ['The payee account must be the PIX key of your own CPF.'];
  } else if (!(gateway.ownerCheckedKeyTypes ?? []).includes(request.accountType)) {
    refusals.account_type = ['The account type must be CPF: withdrawals are paid only to a PIX key of your own CPF.'];
  }
  return refusals;
}
