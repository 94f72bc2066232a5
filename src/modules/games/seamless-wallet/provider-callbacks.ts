import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../../platform/context.ts';
import { randomAlphanumeric, sha256 } from '../../../platform/crypto.ts';
import { retrying } from '../../../platform/db/client.ts';
import { BodyTooDeepError, NotFoundError, ValidationError, WebhookSignatureError } from '../../../platform/errors.ts';
import { nestsDeeperThan } from '../../../platform/input.ts';
import type { Logger } from '../../../platform/logger.ts';
import {
  WALLET_ACTIONS,
  type GameAdapters,
  type GameProviderAdapter,
  type WalletAction,
  type WalletAnswer,
  type WalletCall,
} from '../adapters/adapter.ts';
import {
  prepareProviderLookups,
  prepareWalletStatements,
  type ProviderLookups,
  type WalletAnswerRow,
  type WalletProvider,
  type WalletStatements,
} from './repository.ts';

const CODE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const ID = /^[1-9][0-9]{0,15}$/;
/** Session tokens issued on redemption, as long as launch tokens. */
const SESSION_TOKEN_LENGTH = 48;
/** Deeper than any provider's body; shallow enough for jsonb to store. */
const MAX_BODY_DEPTH = 16;
/**
 * How long a provider's adapter and decrypted secret are reused without reading them again. The
 * wallet functions check the provider's status themselves, so this never lets a disabled
 * provider through; a changed secret is read again as soon as a signature fails.
 */
const PROVIDER_TTL_MS = 5_000;

interface KnownProvider {
  row: WalletProvider;
  /** The decrypted wallet secret; null when the provider has none. */
  secret: string | null;
  until: number;
}

export interface ProviderCallback {
  /** The path's provider: its id or its code. */
  provider: string;
  action: string;
  rawBody: string;
  headers: IncomingHttpHeaders;
  log: Logger;
}

function isWalletAction(action: string): action is WalletAction {
  return (WALLET_ACTIONS as readonly string[]).includes(action);
}

function answerOf(row: WalletAnswerRow, session: string | null): WalletAnswer {
  return {
    status: row.outcome,
    balance: row.balance,
    currency: row.currency,
    transactionId: row.transactionRef,
    session: row.sessionIssued ? session : null,
  };
}

/**
 * The game providers' callbacks to the seamless wallet (docs/api.md section 9), not the player's
 * wallet (src/modules/wallet/): the provider named in the path, its adapter's signature check on
 * the raw body, the call read in our terms, then one wallet function per call (the rules are in
 * SQL, docs/decisions/0003), and the answer worded back. Transport failures are docs/api.md's
 * errors (404, 401, 422); every business outcome is an HTTP 200 in the provider's words.
 */
export class ProviderCallbacks {
  readonly #ctx: AppContext;
  readonly #adapters: GameAdapters;
  readonly #statements: WalletStatements;
  readonly #providers: ProviderLookups;
  readonly #known = new Map<string, KnownProvider>();

  constructor(ctx: AppContext, adapters: GameAdapters) {
    this.#ctx = ctx;
    this.#adapters = adapters;
    this.#statements = prepareWalletStatements(ctx.db);
    this.#providers = prepareProviderLookups(ctx.db);
  }

  async handle(request: ProviderCallback): Promise<Record<string, unknown>> {
    const { action, rawBody, log } = request;
    if (!isWalletAction(action)) throw new NotFoundError();
    let known = await this.#provider(request.provider, false);
    let adapter: GameProviderAdapter;
    try {
      adapter = this.#authenticate(known, request);
    } catch (error) {
      // What was kept may be older than a change of secret or adapter: read it again, once.
      if (!(error instanceof WebhookSignatureError)) throw error;
      known = await this.#provider(request.provider, true);
      adapter = this.#authenticate(known, request);
    }
    const provider = known!.row;

    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw ValidationError.field('body', 'The body must be a JSON object.');
    }
    if (nestsDeeperThan(body, MAX_BODY_DEPTH)) throw new BodyTooDeepError();
    const call = adapter.parseWalletCall(action, body);
    // The wallet function decides on the provider's status as committed (PROVIDER_DISABLED).
    const answer = await this.#apply(provider.id, call, rawBody, log);
    if (answer.status !== 'OK') log.info({ provider: provider.code, action, status: answer.status }, 'wallet call refused');
    return adapter.walletAnswer(call, answer, body);
  }

  /** The provider's adapter, once it verified the call's signature with the provider's secret. */
  #authenticate(known: KnownProvider | undefined, request: ProviderCallback): GameProviderAdapter {
    if (known === undefined) throw new NotFoundError();
    const adapter = this.#adapters.get(known.row.adapter);
    if (adapter === undefined) {
      request.log.error(
        { provider: known.row.code, adapter: known.row.adapter },
        'wallet call for a provider whose adapter this instance lacks',
      );
      throw new NotFoundError();
    }
    // Without a secret nothing can be authenticated: the provider is refused whatever it sends.
    if (known.secret === null) throw new WebhookSignatureError();
    adapter.verify(request.rawBody, request.headers, known.secret, new Date());
    return adapter;
  }

  /** The provider the path names, by id or code; kept a few seconds (`fresh` reads it again). */
  async #provider(reference: string, fresh: boolean): Promise<KnownProvider | undefined> {
    const kept = this.#known.get(reference);
    if (!fresh && kept !== undefined && kept.until > Date.now()) return kept;
    let row: WalletProvider | undefined;
    if (ID.test(reference)) {
      const id = Number(reference);
      row = Number.isSafeInteger(id) ? (await this.#providers.byId.execute({ id }))[0] : undefined;
    } else if (reference.length <= 64 && CODE.test(reference)) {
      row = (await this.#providers.byCode.execute({ code: reference }))[0];
    }
    if (row === undefined) {
      // Only providers that exist are kept, so the map is as small as the provider list.
      this.#known.delete(reference);
      return undefined;
    }
    const known = {
      row,
      secret: row.walletSecret === null ? null : this.#ctx.keys.decrypt(row.walletSecret),
      until: Date.now() + PROVIDER_TTL_MS,
    };
    this.#known.set(reference, known);
    return known;
  }

  /**
   * Counts a committed refund's `bet_refund` line. The answer does not say whether a stake came
   * back (a refused bet, or one that another refund id gave back already, needs nothing); the
   * call's record does. Refunds are rare, so the extra read costs little, it is skipped when
   * metrics are off, and a failure of it only loses the count: the refund is committed and is
   * answered.
   */
  async #reportRefund(transactionRef: number, log: Logger): Promise<void> {
    if (!this.#ctx.money.counting) return;
    try {
      const [recorded] = await this.#statements.recordedAmount.execute({ id: transactionRef });
      const cents = recorded?.amount ?? 0n;
      if (cents > 0n) this.#ctx.money.ledgerLine('bet_refund', cents);
    } catch (error) {
      log.warn({ err: error, transaction: transactionRef }, 'wallet refund: could not read what it moved for the metrics');
    }
  }

  /** One wallet function call, retried when the database rolled it back (a deadlock, or a concurrent delivery of the same call). */
  async #apply(providerId: number, call: WalletCall, payload: string, log: Logger): Promise<WalletAnswer> {
    const statements = this.#statements;
    switch (call.action) {
      case 'balance': {
        const session = randomAlphanumeric(SESSION_TOKEN_LENGTH);
        const [row] = await retrying(() =>
          statements.balance.execute({ providerId, tokenHash: sha256(call.token), sessionHash: sha256(session) }),
        );
        return answerOf(row!, session);
      }
      case 'bet': {
        const [row] = await retrying(() =>
          statements.bet.execute({
            providerId,
            tokenHash: sha256(call.token),
            transactionId: call.transactionId,
            roundId: call.roundId,
            game: call.game,
            amount: call.amount,
            currency: call.currency,
            payload,
          }),
        );
        // One statement on its own, committed by now; a replay moved nothing.
        if (row!.outcome === 'OK' && !row!.replayed) this.#ctx.money.ledgerLine('bet', -call.amount);
        return answerOf(row!, null);
      }
      case 'win': {
        const [row] = await retrying(() =>
          statements.win.execute({
            providerId,
            transactionId: call.transactionId,
            betTransactionId: call.betTransactionId,
            roundId: call.roundId,
            amount: call.amount,
            currency: call.currency,
            roundClosed: call.roundClosed,
            payload,
          }),
        );
        if (row!.outcome === 'OK' && !row!.replayed && call.amount > 0n) this.#ctx.money.ledgerLine('win', call.amount);
        return answerOf(row!, null);
      }
      case 'refund': {
        const [row] = await retrying(() =>
          statements.refund.execute({ providerId, transactionId: call.transactionId, betTransactionId: call.betTransactionId, payload }),
        );
        if (row!.outcome === 'OK' && !row!.replayed && row!.userId !== null && row!.transactionRef !== null) {
          await this.#reportRefund(Number(row!.transactionRef), log);
        }
        return answerOf(row!, null);
      }
    }
  }
}
