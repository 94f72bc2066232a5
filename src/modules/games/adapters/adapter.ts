import type { IncomingHttpHeaders } from 'node:http';
import { Registry } from '../../../platform/registry.ts';

/** What a launch asks of a provider's adapter. */
export interface LaunchRequest {
  provider: { id: number; code: string };
  game: { id: number; slug: string; code: string; name: string };
  /** The single-use launch token (docs/api.md section 7); the provider redeems it once. */
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

export const WALLET_ACTIONS = ['balance', 'bet', 'win', 'refund'] as const;
export type WalletAction = (typeof WALLET_ACTIONS)[number];

/**
 * The seamless wallet's outcomes, in our words (docs/games.md, "Seamless wallet"); the SQL
 * functions db/functions/provider_wallet_*.sql answer them, adapters word them.
 */
export const WALLET_STATUSES = [
  'OK',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'PLAYER_DISABLED',
  'PROVIDER_DISABLED',
  'GAME_NOT_FOUND',
  'CURRENCY_MISMATCH',
  'INSUFFICIENT_FUNDS',
  'DUPLICATE_MISMATCH',
  'BET_NOT_FOUND',
  'BET_REFUNDED',
  'BET_SETTLED',
  'ROUND_MISMATCH',
  'ROUND_CLOSED',
] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];

/** A wallet callback in our terms, as an adapter reads it from its provider's wire format. Money in cents. */
export type WalletCall =
  /** The player's balance; with a launch token, its single redemption (a session token is issued). */
  | { action: 'balance'; token: string }
  | { action: 'bet'; token: string; transactionId: string; roundId: string; game: string; amount: bigint; currency: string }
  | {
      action: 'win';
      transactionId: string;
      betTransactionId: string;
      roundId: string;
      amount: bigint;
      currency: string;
      roundClosed: boolean;
    }
  /** Gives the named bet's stake back. */
  | { action: 'refund'; transactionId: string; betTransactionId: string };

/** What the wallet answers a call, in our terms, for the adapter to word. */
export interface WalletAnswer {
  status: WalletStatus;
  /** Cents: after the call, or now for a refusal or a replay; null when no player is known. */
  balance: bigint | null;
  currency: string | null;
  /** Our id of the recorded money call; null when nothing was recorded, or on DUPLICATE_MISMATCH (the id names another call). */
  transactionId: string | null;
  /** The session token a launch token's redemption issued; later calls carry it. */
  session: string | null;
}

/**
 * One game provider's protocol. Adapters translate the provider's wire format and signatures
 * into wallet calls in our terms; the money rules stay in the wallet's SQL functions, which
 * ProviderCallbacks (seamless-wallet/) calls, so an adapter can never move money by itself.
 */
export interface GameProviderAdapter {
  readonly code: string;
  /** Whether `demo=1` launches are allowed (they move no money). */
  readonly supportsDemo: boolean;
  /** Called outside any database transaction: for a real provider it is a network call. */
  launch(request: LaunchRequest): Promise<Launch>;
  /**
   * Authenticates a wallet callback from its raw body and headers with the provider's secret
   * (throws WebhookSignatureError), before anything else reads the body.
   */
  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void;
  /**
   * Reads a verified callback (its JSON body) in our terms; throws ValidationError (422) for a
   * body it cannot read. It never decides an outcome: that is the wallet's.
   */
  parseWalletCall(action: WalletAction, body: unknown): WalletCall;
  /** The body of the HTTP 200 answer to `call`, in the provider's words (`body` is the request, for echoes). */
  walletAnswer(call: WalletCall, answer: WalletAnswer, body: unknown): Record<string, unknown>;
}

/** The adapters this instance knows, by code; `demo` is the default of a provider without one. */
export class GameAdapters extends Registry<GameProviderAdapter> {}
