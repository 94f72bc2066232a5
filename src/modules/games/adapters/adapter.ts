import type { IncomingHttpHeaders } from 'node:http';

/** What a launch asks of a provider's adapter. */
export interface LaunchRequest {
  provider: { id: number; code: string };
  game: { id: number; slug: string; code: string; name: string };
  /** The single-use launch token (contract section 7); the provider redeems it once. */
  token: string;
  currency: string;
  /** Play without money, where the adapter allows it. */
  demo: boolean;
  /** This service's public URL (APP_URL), for adapters whose game pages we serve. */
  appUrl: string;
}

export interface Launch {
  url: string;
  /** Markup to embed instead of opening `url`, for providers that give one; null otherwise. */
  html: string | null;
}

export type WalletAction = 'balance' | 'bet' | 'win' | 'refund';

/**
 * One game provider's protocol. Adapters translate the provider's wire format and signatures
 * into wallet calls in our terms; the money rules stay in the game wallet service and its SQL
 * function, so an adapter can never move money by itself.
 */
export interface GameProviderAdapter {
  readonly code: string;
  /** Whether `demo=1` launches are allowed (they move no money). */
  readonly supportsDemo: boolean;
  /** Called outside any database transaction: for a real provider it is a network call. */
  launch(request: LaunchRequest): Promise<Launch>;
  /**
   * Authenticates a wallet callback from its raw body and headers with the provider's secret
   * (throws WebhookSignatureError). The seamless-wallet part of this interface (parsing a call
   * and wording its answer) is declared with the wallet service.
   */
  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void;
}

/** The adapters this instance knows, by code; `demo` is the default of a provider without one. */
export class GameAdapters<A extends GameProviderAdapter = GameProviderAdapter> {
  readonly #byCode = new Map<string, A>();

  constructor(adapters: A[] = []) {
    for (const adapter of adapters) this.register(adapter);
  }

  register(adapter: A): void {
    this.#byCode.set(adapter.code, adapter);
  }

  get(code: string): A | undefined {
    return this.#byCode.get(code);
  }

  codes(): string[] {
    return [...this.#byCode.keys()];
  }
}
