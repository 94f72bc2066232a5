import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type {
  GameProviderAdapter,
  Launch,
  LaunchRequest,
  WalletAction,
  WalletAnswer,
  WalletCall,
  WalletStatus,
} from '../../src/modules/games/adapters/adapter.ts';
import { BodyReader } from '../../src/modules/games/adapters/fields.ts';
import { safeEqual } from '../../src/platform/crypto.ts';
import { NotFoundError, WebhookSignatureError } from '../../src/platform/errors.ts';

/** Amounts on this wire are integers in 1/100,000 of a unit: 1,000 per cent. */
export const PER_CENT = 1000n;
const WINDOW_MS = 300_000;

/** How this provider words each of our outcomes (Hub88's status strings). */
export const HUB_STATUS: Record<WalletStatus, string> = {
  OK: 'RS_OK',
  INVALID_TOKEN: 'RS_ERROR_INVALID_TOKEN',
  TOKEN_EXPIRED: 'RS_ERROR_TOKEN_EXPIRED',
  PLAYER_DISABLED: 'RS_ERROR_USER_DISABLED',
  PROVIDER_DISABLED: 'RS_ERROR_INVALID_PARTNER',
  GAME_NOT_FOUND: 'RS_ERROR_INVALID_GAME',
  CURRENCY_MISMATCH: 'RS_ERROR_WRONG_CURRENCY',
  INSUFFICIENT_FUNDS: 'RS_ERROR_NOT_ENOUGH_MONEY',
  DUPLICATE_MISMATCH: 'RS_ERROR_DUPLICATE_TRANSACTION',
  BET_NOT_FOUND: 'RS_ERROR_TRANSACTION_DOES_NOT_EXIST',
  BET_REFUNDED: 'RS_ERROR_TRANSACTION_ROLLED_BACK',
  BET_SETTLED: 'RS_ERROR_TRANSACTION_SETTLED',
  ROUND_MISMATCH: 'RS_ERROR_WRONG_ROUND',
  ROUND_CLOSED: 'RS_ERROR_ROUND_CLOSED',
  LIMIT_REACHED: 'RS_ERROR_LIMIT_REACHED',
  WIN_HELD: 'RS_ERROR_WIN_HELD',
  WIN_REFUSED: 'RS_ERROR_WIN_REFUSED',
};

/** `X-Hub-Signature: base64(HMAC-SHA256(secret, "<X-Hub-Timestamp>:" + raw body))`, the timestamp in milliseconds. */
export function hubSignature(secret: string, rawBody: string, atMs: number): string {
  return createHmac('sha256', secret).update(`${atMs}:${rawBody}`).digest('base64');
}

/**
 * A second wire format, in test code only, to prove the adapter boundary: Hub88-like field
 * names (`transaction_uuid`, `reference_transaction_uuid`, `round`, `game_code`), amounts as
 * integers in 1/100,000, its own signature headers and status strings, an echoed request id.
 */
export class HubLikeAdapter implements GameProviderAdapter {
  readonly code = 'hub';
  readonly supportsDemo = false;

  async launch(request: LaunchRequest): Promise<Launch> {
    return { url: `https://hub.example/launch?token=${request.token}`, html: null };
  }

  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void {
    const signature = headers['x-hub-signature'];
    const at = headers['x-hub-timestamp'];
    if (typeof signature !== 'string' || typeof at !== 'string' || !/^\d{1,15}$/.test(at)) throw new WebhookSignatureError();
    const valid = safeEqual(signature, hubSignature(secret, rawBody, Number(at)));
    if (!valid || Math.abs(now.getTime() - Number(at)) > WINDOW_MS) throw new WebhookSignatureError();
  }

  parseWalletCall(action: WalletAction, body: unknown): WalletCall {
    const read = new BodyReader(body);
    read.id('request_uuid');
    let call: WalletCall;
    switch (action) {
      case 'balance':
        call = { action, token: read.token('token') };
        break;
      case 'bet':
        call = {
          action,
          token: read.token('token'),
          transactionId: read.id('transaction_uuid'),
          roundId: read.id('round'),
          game: read.token('game_code'),
          amount: read.scaled('amount', PER_CENT, { min: 1n }),
          currency: read.currency('currency'),
        };
        break;
      case 'win':
        call = {
          action,
          transactionId: read.id('transaction_uuid'),
          betTransactionId: read.id('reference_transaction_uuid'),
          roundId: read.id('round'),
          amount: read.scaled('amount', PER_CENT, { min: 0n }),
          currency: read.currency('currency'),
          roundClosed: read.flag('round_closed'),
        };
        break;
      case 'refund':
        call = { action, transactionId: read.id('transaction_uuid'), betTransactionId: read.id('reference_transaction_uuid') };
        break;
      case 'player':
        // The built-in protocol has no call that names a player without a token.
        throw new NotFoundError();
    }
    read.done();
    return call;
  }

  walletAnswer(_call: WalletCall, answer: WalletAnswer, body: unknown): Record<string, unknown> {
    return {
      request_uuid: (body as { request_uuid?: unknown }).request_uuid,
      status: HUB_STATUS[answer.status],
      balance: answer.balance === null ? null : Number(answer.balance * PER_CENT),
      currency: answer.currency,
      ...(answer.session === null ? {} : { token: answer.session }),
    };
  }
}
