import { PayoutRefusedError, type PayoutGateway, type PayoutReport, type PayoutRequest } from '../gateways/payout.ts';
import type { PixApiClient } from '../pix-api/client.ts';
import { PixApiError } from '../pix-api/errors.ts';
import type { PixMethods } from '../pix-api/methods.ts';
import { WireError } from '../pix-api/wire.ts';
import { readSentPix, sendBody, sendId, type SentPix } from './pix-send.ts';

/** What a refusal says, for the withdrawal's reason: the PSP's own words where it gave them. */
function refusalText(error: PixApiError): string {
  const words = [error.problem?.title, error.problem?.detail].filter((part) => part !== undefined && !/^HTTP \d+$/.test(part));
  return `The PSP refused the payout${words.length > 0 ? `: ${words.join(': ')}` : ` (HTTP ${error.status})`}.`;
}

const REPORTED = { EM_PROCESSAMENTO: 'processing', REALIZADO: 'paid', NAO_REALIZADO: 'failed' } as const;

/**
 * Payouts through Efí's PIX send (docs/api.md section 13b), from the account of the `efi`
 * payment method the withdrawal names: `PUT /v3/gn/pix/{idEnvio}` with the method's key as payer
 * and the payee's key (and CPF, where known) as favorecido; `GET
 * /v2/gn/pix/enviados/id-envio/{idEnvio}` for what became of it. The idEnvio is the withdrawal's
 * reference, so a retry is the same payout. Every call goes through the method's API Pix client
 * (mutual TLS, OAuth2, a deadline), never inside a database transaction.
 */
export class EfiPayoutGateway implements PayoutGateway {
  readonly code = 'efi';
  readonly #methods: PixMethods;

  constructor(methods: PixMethods) {
    this.#methods = methods;
  }

  async requestPayout(request: PayoutRequest): Promise<{ payoutId: string }> {
    const { client, pixKey } = await this.#method(request.paymentMethodId);
    const idEnvio = sendId(request.reference);
    const body = sendBody({
      amount: request.amountCents,
      payerKey: pixKey,
      payeeKey: request.key,
      payeeCpf: request.payeeCpf,
      message: request.description,
    });
    try {
      const answer = await client.request({ method: 'PUT', originPath: `/v3/gn/pix/${idEnvio}`, body });
      const sent = this.#read(answer.body, answer.status, 'PUT /v3/gn/pix');
      return { payoutId: sent.endToEndId ?? idEnvio };
    } catch (error) {
      // A timeout, a 5xx, a broken connection or an unreadable answer: the send may have been made.
      if (!(error instanceof PixApiError) || error.outcomeUnknown) throw error;
      // A refusal (or a 409: this idEnvio was used before, by an earlier attempt at this payout):
      // what the PSP holds under the idEnvio decides. If the look fails, the outcome is unknown.
      const report = await this.#query(client, idEnvio);
      if (report.state === 'absent') throw new PayoutRefusedError(refusalText(error), { cause: error });
      return { payoutId: report.payoutId ?? idEnvio };
    }
  }

  async queryPayout(request: Pick<PayoutRequest, 'reference' | 'paymentMethodId'>): Promise<PayoutReport> {
    const { client } = await this.#method(request.paymentMethodId);
    return this.#query(client, sendId(request.reference));
  }

  async #query(client: PixApiClient, idEnvio: string): Promise<PayoutReport> {
    let sent: SentPix;
    try {
      const answer = await client.request({ method: 'GET', originPath: `/v2/gn/pix/enviados/id-envio/${idEnvio}` });
      sent = this.#read(answer.body, answer.status, 'GET /v2/gn/pix/enviados/id-envio');
    } catch (error) {
      if (error instanceof PixApiError && error.notFound) return { state: 'absent' };
      throw error;
    }
    if (sent.idEnvio !== idEnvio)
      throw new PixApiError('unexpected', 'GET /v2/gn/pix/enviados/id-envio', `the PSP answered another send (${sent.idEnvio})`);
    return { state: REPORTED[sent.status], payoutId: sent.endToEndId, amountCents: sent.amount };
  }

  #read(body: unknown, status: number, call: string): SentPix {
    try {
      return readSentPix(body);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      throw new PixApiError('unexpected', call, error.message, { status, cause: error });
    }
  }

  /** The efi method that pays; a method that is gone, of another gateway, or whose configuration no longer works pays nothing. */
  async #method(id: number | null): Promise<{ client: PixApiClient; pixKey: string }> {
    const method = id === null ? undefined : await this.#methods.byId(id);
    if (method === undefined || method.gateway !== this.code)
      throw new Error(`payment method ${id} has no usable efi configuration; nothing was sent`);
    return { client: method.client, pixKey: method.config.pixKey };
  }
}
