import type { IncomingHttpHeaders } from 'node:http';
import { NotFoundError } from '../../../platform/errors.ts';
import { toUnits } from '../../../platform/money.ts';
import { verifySignedBody } from '../../../platform/signature.ts';
import type { GameProviderAdapter, Launch, LaunchRequest, WalletAction, WalletAnswer, WalletCall } from '../adapters/adapter.ts';
import { BodyReader } from '../adapters/fields.ts';

/**
 * The built-in provider: a small slot game whose page this service serves and whose server side
 * calls our own seamless wallet with a correct signature, so the whole flow runs with no third
 * party (docs/games.md).
 *
 * Its wallet protocol is our generic one, for any provider without a protocol of its own
 * (docs/games.md, "Seamless wallet"): JSON bodies signed with `X-Signature`, amounts in currency
 * units, and every business outcome answered with HTTP 200 as `{"status": "OK" | <code>,
 * "balance", "currency", "transaction_id"?, "session"?}`.
 */
export class DemoAdapter implements GameProviderAdapter {
  readonly code = 'demo';
  readonly supportsDemo = true;

  async launch(request: LaunchRequest): Promise<Launch> {
    const url = new URL('/games/demo/play', request.appUrl);
    url.searchParams.set('token', request.token);
    return { url: url.href, html: null };
  }

  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void {
    verifySignedBody(rawBody, headers, secret, now);
  }

  parseWalletCall(action: WalletAction, body: unknown): WalletCall {
    const read = new BodyReader(body);
    let call: WalletCall;
    switch (action) {
      case 'balance':
        call = { action, token: read.token('token') };
        break;
      case 'bet':
        call = {
          action,
          token: read.token('token'),
          transactionId: read.id('transaction_id'),
          roundId: read.id('round_id'),
          game: read.token('game'),
          amount: read.units('amount', { min: 1n }),
          currency: read.currency('currency'),
        };
        break;
      case 'win':
        call = {
          action,
          transactionId: read.id('transaction_id'),
          betTransactionId: read.id('bet_transaction_id'),
          roundId: read.id('round_id'),
          amount: read.units('amount', { min: 0n }),
          currency: read.currency('currency'),
          roundClosed: read.flag('round_closed'),
        };
        break;
      case 'refund':
        call = { action, transactionId: read.id('transaction_id'), betTransactionId: read.id('bet_transaction_id') };
        break;
      case 'player':
        // The built-in protocol has no call that names a player without a token.
        throw new NotFoundError();
    }
    read.done();
    return call;
  }

  walletAnswer(_call: WalletCall, answer: WalletAnswer): Record<string, unknown> {
    return {
      status: answer.status,
      balance: answer.balance === null ? null : toUnits(answer.balance),
      currency: answer.currency,
      ...(answer.transactionId === null ? {} : { transaction_id: answer.transactionId }),
      ...(answer.session === null ? {} : { session: answer.session }),
    };
  }
}
