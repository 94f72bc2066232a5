import type { IncomingHttpHeaders } from 'node:http';
import { WebhookSignatureError } from '../../../platform/errors.ts';
import {
  WalletCallRefused,
  type AdapterConfig,
  type CallRefusal,
  type GameProviderAdapter,
  type Launch,
  type LaunchRequest,
  type ListedGame,
  type WalletAction,
  type WalletAnswer,
  type WalletCall,
} from '../adapters/adapter.ts';
import { callHub88, GAME_LIST_PATH, GAME_URL_PATH, Hub88CallError, LAUNCH_TIMEOUT_MS } from './client.ts';
import { HUB88_CONFIG, hub88Config } from './config.ts';
import { hub88Verifies, SIGNATURE_HEADER } from './signature.ts';
import { CARRIES_BALANCE, echoed, HUB88_REFUSAL, HUB88_STATUS, Hub88Body, hub88User, UNITS_PER_CENT } from './wire.ts';

/** Hub88's demo play: the currency `XXX`, and neither a token nor a player (docs.hub88.io, "Games API"). */
export const DEMO_CURRENCY = 'XXX';
/** Where our players are (a Brazilian operator, docs/games.md). */
const COUNTRY = 'BR';
const DEFAULT_LANGUAGE = 'pt';

function platformOf(userAgent: string | undefined): 'GPL_MOBILE' | 'GPL_DESKTOP' {
  return userAgent !== undefined && /Mobi|Android|iPhone|iPad|iPod/i.test(userAgent) ? 'GPL_MOBILE' : 'GPL_DESKTOP';
}

/** The ISO 639-1 code of the browser's first language (`pt-BR,pt;q=0.9` → `pt`), else Portuguese. */
function languageOf(acceptLanguage: string | undefined): string {
  const first = acceptLanguage?.trim().slice(0, 2).toLowerCase();
  return first !== undefined && /^[a-z]{2}$/.test(first) ? first : DEFAULT_LANGUAGE;
}

/**
 * Hub88's Operator API (docs/api.md section 15, docs/games.md "Connecting a Hub88 operator
 * account"). Hub88 calls us at `POST {APP_URL}/api/providers/{code}/hub88/<path>`, one path per
 * call, each body signed RSA-SHA256 by Hub88; every answer is an HTTP 200 with an `RS_*` status,
 * the request's `user` and `request_uuid`, and the balance where the docs ask for it. We call its
 * Games API for launches and the game list, signed with our private key.
 *
 * Where Hub88's rules are not the built-in protocol's, the call says so and the wallet's SQL
 * applies them (WalletCall): `user` names the player besides the token or bet; a bet may close
 * its round; /transaction/rollback undoes one transaction (refused only when a win named it). The
 * token a launch hands Hub88 is the session's for its whole life (launchToken `session`); its
 * expiry is checked on bets and balances and never on wins and rollbacks, which name their bet.
 */
export class Hub88Adapter implements GameProviderAdapter {
  readonly code = 'hub88';
  readonly supportsDemo = true;
  readonly launchToken = 'session';
  readonly config = HUB88_CONFIG;
  readonly signedBy = 'hub88';
  readonly walletPaths: Readonly<Record<string, WalletAction>> = {
    'user/info': 'player',
    'user/balance': 'balance',
    'transaction/bet': 'bet',
    'transaction/win': 'win',
    'transaction/rollback': 'refund',
  };
  readonly #launchTimeoutMs: number;

  /** `launchTimeoutMs`: how long a launch waits for Hub88's game URL (tests shorten it). */
  constructor(options: { launchTimeoutMs?: number } = {}) {
    this.#launchTimeoutMs = options.launchTimeoutMs ?? LAUNCH_TIMEOUT_MS;
  }

  async launch(request: LaunchRequest): Promise<Launch> {
    const config = hub88Config(request.config);
    if (config === undefined) throw new Error('The provider has no Hub88 configuration.');
    const common = {
      platform: platformOf(request.client.userAgent),
      operator_id: config.operatorId,
      lobby_url: request.lobbyUrl,
      lang: languageOf(request.client.language),
      ip: request.client.ip,
      game_code: request.game.code,
      country: COUNTRY,
    };
    const body = request.demo
      ? { ...common, currency: DEMO_CURRENCY }
      : { user: hub88User(request.player.id), token: request.token, ...common, currency: request.currency };
    const answer = await callHub88(config, GAME_URL_PATH, body, AbortSignal.timeout(this.#launchTimeoutMs));
    const url = (answer as { url?: unknown } | null)?.url;
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new Hub88CallError(200, 'an answer without a game URL');
    return { url, html: null };
  }

  walletKey(config: AdapterConfig | null): string | null {
    return hub88Config(config)?.hub88PublicKey ?? (typeof config?.hub88_public_key === 'string' ? config.hub88_public_key : null);
  }

  verify(rawBody: string, headers: IncomingHttpHeaders, publicKey: string): void {
    if (!hub88Verifies(rawBody, headers[SIGNATURE_HEADER], publicKey)) throw new WebhookSignatureError();
  }

  requestId(body: unknown): string | undefined {
    const id = echoed(body, 'request_uuid');
    return id !== undefined && id.length >= 1 && id.length <= 100 ? id : undefined;
  }

  parseWalletCall(action: WalletAction, raw: unknown): WalletCall {
    const body = new Hub88Body(raw);
    body.string('request_uuid', 100);
    const player = body.player();
    switch (action) {
      case 'player':
        return { action, player };
      case 'balance':
        return { action, token: body.string('token'), player };
      case 'bet': {
        // Free bets are the operator's to grant (Hub88's Freebets API); we grant none, so a bet
        // Hub88 marks free would be taken from real money it was never meant to take.
        if (body.flag('is_free')) throw new WalletCallRefused('UNSUPPORTED', 'a free bet');
        return {
          action,
          token: body.string('token'),
          transactionId: body.id('transaction_uuid'),
          roundId: body.id('round'),
          game: body.string('game_code'),
          amount: body.cents('amount', 1n),
          currency: body.string('currency', 16),
          roundClosed: body.flag('round_closed'),
          player,
        };
      }
      case 'win':
        return {
          action,
          transactionId: body.id('transaction_uuid'),
          betTransactionId: body.id('reference_transaction_uuid'),
          roundId: body.id('round'),
          amount: body.cents('amount', 0n),
          currency: body.string('currency', 16),
          roundClosed: body.flag('round_closed'),
          player,
        };
      case 'refund':
        return {
          action,
          transactionId: body.id('transaction_uuid'),
          betTransactionId: body.id('reference_transaction_uuid'),
          rollback: true,
          player,
        };
    }
  }

  walletAnswer(call: WalletCall, answer: WalletAnswer, body: unknown): Record<string, unknown> {
    const status = HUB88_STATUS[answer.status];
    const words: Record<string, unknown> = { user: echoed(body, 'user'), status, request_uuid: echoed(body, 'request_uuid') };
    // /user/info answers the player, not money; the money calls carry the balance where Hub88 asks for it.
    if (call.action !== 'player' && CARRIES_BALANCE.has(status) && answer.balance !== null && answer.currency !== null) {
      words.currency = answer.currency;
      words.balance = Number(answer.balance * UNITS_PER_CENT);
    }
    return words;
  }

  refusal(reason: CallRefusal, body: unknown): Record<string, unknown> {
    return { user: echoed(body, 'user'), status: HUB88_REFUSAL[reason], request_uuid: echoed(body, 'request_uuid') };
  }

  async listGames(config: AdapterConfig | null, signal: AbortSignal): Promise<ListedGame[]> {
    const hub88 = hub88Config(config);
    if (hub88 === undefined) throw new Error('The provider has no Hub88 configuration.');
    const answer = await callHub88(hub88, GAME_LIST_PATH, { operator_id: hub88.operatorId }, signal);
    if (!Array.isArray(answer)) throw new Hub88CallError(200, 'a game list that is not a list');
    return answer.map((item: unknown, index): ListedGame => {
      const game = (item ?? {}) as Record<string, unknown>;
      if (
        typeof game.game_code !== 'string' ||
        game.game_code.length === 0 ||
        game.game_code.length > 255 ||
        typeof game.name !== 'string'
      ) {
        throw new Hub88CallError(200, `game ${index} of the list has no game_code or name`);
      }
      return { code: game.game_code, name: game.name.trim().slice(0, 255) || game.game_code, enabled: game.enabled !== false };
    });
  }
}
