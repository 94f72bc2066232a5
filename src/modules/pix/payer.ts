import type { PixApiClient } from '../payments/pix-api/client.ts';
import type { ReceivedPix } from '../payments/pix-api/wire.ts';
import type { PixContext } from './context.ts';
import { verifiedCpf, type PayerVerdict } from '../topups/own-account.ts';

/**
 * The window asked of `GET /pix` around a payment's `horario`: the PSP's own timestamp, so it
 * lists the payment well inside it; wider costs nothing, as the txid and CPF filters leave a
 * handful of lines at most.
 */
export const AROUND_MS = 10 * 60_000;
const PAGE_SIZE = 100;

/** A CPF as a payer record writes it, plain or punctuated; undefined for one masked (`***.456.789-**`) or absent. */
function plainCpf(value: string | undefined): string | undefined {
  const digits = value?.replace(/[.\-\s]/g, '');
  return digits !== undefined && /^\d{11}$/.test(digits) ? digits : undefined;
}

/**
 * Whether whose money a payment is must be established before it is decided (REGULATION=br).
 * Otherwise the verdict is `unregulated` without a question, and the rest of the disposition
 * rule is what pay_topup's gate checks (receipts.ts credits such a payment in one statement).
 */
export function judgesPayer(ctx: PixContext): boolean {
  return ctx.config.regulation === 'br';
}

/**
 * Whose money a payment the PSP confirmed is (docs/api.md section 14, "Own-account money"),
 * under REGULATION=br; `unregulated` otherwise, without a question. Compared with the CPF of
 * the player's verified identity:
 * - the payer the PSP names on the payment (Efí's `gnExtras.pagador`, a PSP's `pagador`): its CPF
 *   when it gives one in full; a payer with a CNPJ and no CPF is a company, never the player;
 * - otherwise (the standard's `Pix` names no payer, or the CPF is masked) the PSP's own filter:
 *   `GET /pix?inicio&fim&txid=<the charge>&cpf=<the player's CPF>` around the payment's
 *   `horario`; the payment is the player's when its endToEndId is listed.
 * A PSP that cannot answer throws (PixApiError): nothing is decided, and the payment is settled
 * by a later notification or reconciliation pass.
 */
export async function payerVerdict(
  ctx: PixContext,
  client: Pick<PixApiClient, 'received'>,
  payment: ReceivedPix & { txid: string },
  userId: number,
): Promise<PayerVerdict> {
  if (!judgesPayer(ctx)) return 'unregulated';
  const players = await verifiedCpf(ctx.db, userId);
  if (players === undefined) return 'player_unverified';
  const named = payment.payer;
  const cpf = plainCpf(named?.cpf);
  if (cpf !== undefined) return cpf === players ? 'player' : 'third_party';
  if (named !== undefined && named.cpf === undefined && named.cnpj !== undefined) return 'third_party';

  const from = new Date(payment.at.getTime() - AROUND_MS);
  const to = new Date(payment.at.getTime() + AROUND_MS);
  for (let page = 0, pages = 1; page < pages; page += 1) {
    const answer = await client.received({ from, to, page, perPage: PAGE_SIZE, txid: payment.txid, cpf: players });
    if (answer.items.some((item) => item.endToEndId === payment.endToEndId)) return 'player';
    pages = answer.pages;
  }
  return 'third_party';
}
