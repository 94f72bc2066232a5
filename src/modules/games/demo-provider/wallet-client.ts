import { signBody } from '../../../platform/signature.ts';
import type { WalletAction } from '../adapters/adapter.ts';

/** The built-in protocol's answer (docs/games.md, "Seamless wallet"), as the demo game server reads it. */
export interface DemoWalletAnswer {
  status: string;
  balance: number | null;
  currency: string | null;
  transaction_id?: string;
  session?: string;
}

/** One signed request handed to this process's router, and what it answered (the shape of `app.inject`). */
export type Inject = (request: {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  payload: string;
}) => Promise<{ statusCode: number; body: string }>;

/** A call that got no wallet answer at all (not a business refusal): the demo game server may try again. */
export class WalletUnreachableError extends Error {
  override name = 'WalletUnreachableError';
}

/**
 * The demo game server's side of our seamless wallet: it speaks the built-in protocol exactly as
 * a third-party provider would (a JSON body signed with the provider's wallet secret, the
 * signature checked on the raw bytes), but hands the request to this process's own router
 * (`app.inject`) instead of the network: the whole route runs (raw body, signature, adapter,
 * wallet function) without depending on APP_URL being reachable from the server itself
 * (docs/games.md, "Demo game"). Each call carries the request id of the page's request that
 * caused it (`X-Request-Id`), so a spin and its `bet` and `win` share one id in the log.
 */
export class DemoWalletClient {
  readonly #inject: Inject;

  constructor(inject: Inject) {
    this.#inject = inject;
  }

  async call(
    provider: { id: number; secret: string },
    action: WalletAction,
    body: Record<string, unknown>,
    requestId?: string,
  ): Promise<DemoWalletAnswer> {
    const raw = JSON.stringify(body);
    const response = await this.#inject({
      method: 'POST',
      url: `/api/providers/${provider.id}/wallet/${action}`,
      headers: {
        'content-type': 'application/json',
        'x-signature': signBody(provider.secret, raw, Math.floor(Date.now() / 1000)),
        ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
      },
      payload: raw,
    });
    if (response.statusCode !== 200) {
      throw new WalletUnreachableError(`wallet ${action} answered HTTP ${response.statusCode}: ${response.body.slice(0, 200)}`);
    }
    return JSON.parse(response.body) as DemoWalletAnswer;
  }
}
