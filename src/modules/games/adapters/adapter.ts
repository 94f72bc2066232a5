import type { IncomingHttpHeaders } from 'node:http';
import type { FieldErrors } from '../../../platform/errors.ts';
import { Registry } from '../../../platform/registry.ts';

/**
 * A provider's adapter configuration (`providers.adapter_config`, docs/api.md section 15), as the
 * adapter reads it: its write-only fields decrypted (adapters/config.ts keeps them sealed at rest).
 */
export type AdapterConfig = Readonly<Record<string, unknown>>;

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
  /** The player launching. */
  player: { id: number };
  /** What the player's browser said of itself, for providers that ask (a layout, a language, the address). */
  client: { ip: string; userAgent: string | undefined; language: string | undefined };
  /** The front end (FRONTEND_URL): where a game's "home" button leads. */
  lobbyUrl: string;
  /** The provider's adapter configuration; null when it has none. */
  config: AdapterConfig | null;
}

export interface Launch {
  url: string;
  /** Markup to embed instead of opening `url`, for providers that give one; null otherwise. */
  html: string | null;
}

/** The actions of the generic callback path, POST /api/providers/:provider/wallet/:action. */
export const WALLET_ACTIONS = ['balance', 'bet', 'win', 'refund'] as const;
/** Every wallet action; `player` (a player looked up by id, Hub88's /user/info) only by an adapter's own paths. */
export type WalletAction = (typeof WALLET_ACTIONS)[number] | 'player';

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
  'LIMIT_REACHED',
  // A win above the operator's ceiling (settings `games.max_win`): recorded, not credited, until
  // staff release it (it then answers OK) or refuse it (WIN_REFUSED); docs/games.md, "Held wins".
  'WIN_HELD',
  'WIN_REFUSED',
] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];

/**
 * A wallet callback in our terms, as an adapter reads it from its provider's wire format. Money in
 * cents. `player` is the player the call names besides its token or bet, for protocols that name
 * one (Hub88's `user`): the wallet then refuses a token or a bet of anyone else. Absent: the token
 * or the bet alone names the player (the built-in protocol).
 */
export type WalletCall =
  /** The player's balance; with a launch token, its single redemption (a session token is issued). */
  | { action: 'balance'; token: string; player?: number }
  | {
      action: 'bet';
      token: string;
      transactionId: string;
      roundId: string;
      game: string;
      amount: bigint;
      currency: string;
      /** The bet ends its round (Hub88: `round_closed` on a bet). */
      roundClosed?: boolean;
      player?: number;
    }
  | {
      action: 'win';
      transactionId: string;
      betTransactionId: string;
      roundId: string;
      amount: bigint;
      currency: string;
      roundClosed: boolean;
      player?: number;
    }
  /**
   * Gives the named bet's stake back. `rollback`: undoes that one transaction (Hub88's
   * /transaction/rollback), refused only when a win named that bet; without it, a round that paid
   * any win refuses it (docs/games.md, "Rules").
   */
  | { action: 'refund'; transactionId: string; betTransactionId: string; rollback?: boolean; player?: number }
  /** A player looked up by id alone (Hub88's /user/info): known to a provider once they launched one of its games. */
  | { action: 'player'; player: number };

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
 * Why a call was refused before it reached the wallet: a signature that does not verify, a body
 * that is not the protocol's (missing fields, or not even JSON), fields of the wrong type or
 * range, a request id already answered for another request, or something the protocol allows and
 * this service does not take (Hub88 free bets).
 */
export type CallRefusal = 'INVALID_SIGNATURE' | 'MALFORMED' | 'WRONG_TYPES' | 'REQUEST_REUSED' | 'UNSUPPORTED';

/** Thrown by an adapter that answers refusals in its protocol's words (see `refusal`). */
export class WalletCallRefused extends Error {
  readonly reason: CallRefusal;

  constructor(reason: CallRefusal, message: string = reason) {
    super(message);
    this.name = 'WalletCallRefused';
    this.reason = reason;
  }
}

/** What an adapter's configuration is made of, and how a configuration is checked (adapters/config.ts). */
export interface AdapterConfigSpec {
  /** Fields in the order they are documented. */
  readonly fields: readonly string[];
  /** Write-only fields: stored encrypted, never returned, `[redacted]` in the operation log. */
  readonly secretFields: readonly string[];
  /** The problems of a whole configuration (an update merged over what is stored), by field; empty when none. */
  check(config: AdapterConfig): FieldErrors;
}

/** A game as a provider lists it, for `croupier games:sync`. */
export interface ListedGame {
  /** The game's code at the provider (`provider_games.code`). */
  code: string;
  name: string;
  /** Whether the provider offers it to us now; a game listed as not enabled is treated as gone. */
  enabled: boolean;
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

  // What a protocol may add; every member below is optional, and its absence is the built-in behaviour.

  /**
   * `redeem` (the default): the launch token is redeemed once, within its 120 s, by a `balance`
   * call that issues the session token later calls carry. `session`: the token a launch hands the
   * provider is the game session's own, carried by every call for the session's life (Hub88).
   */
  readonly launchToken?: 'redeem' | 'session';
  /** The adapter's configuration (`adapter_config`), when it takes one. */
  readonly config?: AdapterConfigSpec;
  /** The key `verify` is given, from the configuration; without this member, the provider's `wallet_secret`. */
  walletKey?(config: AdapterConfig | null): string | null;
  /**
   * A protocol with paths of its own: each path after `/api/providers/:provider/<adapter code>/`
   * and the action it is. Such a provider is not served by the generic `/wallet/:action`.
   */
  readonly walletPaths?: Readonly<Record<string, WalletAction>>;
  /** How the OpenAPI document names the signature of those paths (src/platform/http/openapi.ts); default the built-in one. */
  readonly signedBy?: 'provider' | 'hub88';
  /**
   * The id under which the protocol promises the same answer to the same request (Hub88's
   * `request_uuid`): a request id seen before gets its first answer again, whatever happened since.
   */
  requestId?(body: unknown): string | undefined;
  /**
   * How the protocol answers a call refused before the wallet, with HTTP 200. Without this member
   * the refusals are docs/api.md's errors (401 for a signature, 422 for a body).
   */
  refusal?(reason: CallRefusal, body: unknown): Record<string, unknown>;
  /** The provider's game list (`croupier games:sync`); a network call, bounded by `signal`. */
  listGames?(config: AdapterConfig | null, signal: AbortSignal): Promise<ListedGame[]>;
}

/** The adapters this instance knows, by code; `demo` is the default of a provider without one. */
export class GameAdapters extends Registry<GameProviderAdapter> {}
