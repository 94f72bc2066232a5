import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../../platform/context.ts';
import { randomAlphanumeric, sha256 } from '../../../platform/crypto.ts';
import { retrying } from '../../../platform/db/client.ts';
import { BodyTooDeepError, NotFoundError, ValidationError, WebhookSignatureError } from '../../../platform/errors.ts';
import { nestsDeeperThan } from '../../../platform/input.ts';
import type { Logger } from '../../../platform/logger.ts';
import {
  WALLET_ACTIONS,
  WalletCallRefused,
  type AdapterConfig,
  type CallRefusal,
  type GameAdapters,
  type GameProviderAdapter,
  type WalletAction,
  type WalletAnswer,
  type WalletStatus,
  type WalletCall,
} from '../adapters/adapter.ts';
import { openConfig } from '../adapters/config.ts';
import { canonicalJson } from './canonical-json.ts';
import {
  prepareProviderLookups,
  prepareRequestMemo,
  prepareWalletStatements,
  type ProviderLookups,
  type RequestMemo,
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
 * How long a provider's adapter, decrypted secret and configuration are reused without reading
 * them again. The wallet functions check the provider's status themselves, so this never lets a
 * disabled provider through; a changed key is read again as soon as a signature fails.
 */
const PROVIDER_TTL_MS = 5_000;

interface KnownProvider {
  row: WalletProvider;
  /** The decrypted wallet secret; null when the provider has none. */
  secret: string | null;
  /** The adapter configuration, write-only fields decrypted; null when none. */
  config: AdapterConfig | null;
  until: number;
}

export interface ProviderCallback {
  /** The path's provider: its id or its code. */
  provider: string;
  /** The generic path's `:action`, or the path after `/<adapter>/` of an adapter's own paths. */
  action: string;
  /** The adapter whose own paths the call came by (`walletPaths`); absent for the generic `/wallet/:action`. */
  via?: string;
  rawBody: string;
  headers: IncomingHttpHeaders;
  /** The request's path and the caller's address, for the operation log's alert of a held win. */
  path: string;
  ip: string;
  log: Logger;
}

function isWalletAction(action: string): action is (typeof WALLET_ACTIONS)[number] {
  return (WALLET_ACTIONS as readonly string[]).includes(action);
}

/** A wallet statement's row: the answer, and whether this call kept it under its request id. */
function answerOf(row: WalletAnswerRow & { requestKept: boolean }, session: string | null): Applied {
  return {
    answer: {
      status: row.outcome,
      balance: row.balance,
      currency: row.currency,
      transactionId: row.transactionRef,
      session: row.sessionIssued ? session : null,
    },
    kept: row.requestKept,
  };
}

interface Applied {
  answer: WalletAnswer;
  kept: boolean;
}

/**
 * An answer provider_request_keep kept (db/functions): what the wallet answered, never a
 * session token (a protocol with request ids carries its launch token, and none is issued).
 */
function keptAnswer(text: string): WalletAnswer {
  const kept = JSON.parse(text) as {
    status: WalletStatus;
    balance: string | null;
    currency: string | null;
    transaction_ref: string | null;
  };
  return {
    status: kept.status,
    balance: kept.balance === null ? null : BigInt(kept.balance),
    currency: kept.currency,
    transactionId: kept.transaction_ref,
    session: null,
  };
}

/** The body as received, parsed, or undefined; only for echoes in a refusal, never trusted. */
function looselyParsed(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    return undefined;
  }
}

/**
 * The game providers' callbacks to the seamless wallet (docs/api.md sections 9 and 15), not the
 * player's wallet (src/modules/wallet/): the provider named in the path, its adapter's signature
 * check on the raw body, the call read in our terms, then one wallet function per call (the rules
 * are in SQL, docs/decisions/0003), and the answer worded back. Transport failures are
 * docs/api.md's errors (404, 401, 422), or HTTP 200 in the protocol's words where the adapter has
 * them (`refusal`, Hub88); every business outcome is an HTTP 200 in the provider's words. A
 * protocol that promises the same answer to the same request id (`requestId`, Hub88) gets its
 * first answer again from `provider_requests`.
 */
export class ProviderCallbacks {
  readonly #ctx: AppContext;
  readonly #adapters: GameAdapters;
  readonly #statements: WalletStatements;
  readonly #providers: ProviderLookups;
  readonly #memo: RequestMemo;
  readonly #known = new Map<string, KnownProvider>();

  constructor(ctx: AppContext, adapters: GameAdapters) {
    this.#ctx = ctx;
    this.#adapters = adapters;
    this.#statements = prepareWalletStatements(ctx.db, ctx.config.regulation);
    this.#providers = prepareProviderLookups(ctx.db);
    this.#memo = prepareRequestMemo(ctx.db);
  }

  async handle(request: ProviderCallback): Promise<Record<string, unknown>> {
    const { rawBody, log } = request;
    let known = await this.#provider(request.provider, false);
    if (known === undefined) throw new NotFoundError();
    const adapter = this.#adapterOf(known, request);
    const action = this.#actionOf(adapter, request);
    try {
      this.#verify(adapter, known, request);
    } catch (error) {
      // What was kept may be older than a change of key or adapter: read it again, once.
      if (!(error instanceof WebhookSignatureError)) throw error;
      known = await this.#provider(request.provider, true);
      if (known === undefined || known.row.adapter !== adapter.code) throw new NotFoundError();
      try {
        this.#verify(adapter, known, request);
      } catch (again) {
        if (!(again instanceof WebhookSignatureError)) throw again;
        return this.#refused(adapter, known, action, 'INVALID_SIGNATURE', looselyParsed(rawBody), log, again);
      }
    }
    const provider = known.row;

    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return this.#refused(
        adapter,
        known,
        action,
        'MALFORMED',
        undefined,
        log,
        ValidationError.field('body', 'The body must be a JSON object.'),
      );
    }
    if (nestsDeeperThan(body, MAX_BODY_DEPTH)) throw new BodyTooDeepError();

    const requestId = adapter.requestId?.(body);
    const bodyHash = requestId === undefined ? '' : sha256(canonicalJson(body));
    const first = requestId === undefined ? undefined : (await this.#memo.find.execute({ providerId: provider.id, requestId }))[0];
    if (first !== undefined && first.bodyHash !== bodyHash) return this.#reused(adapter, known, action, body, log);

    let call: WalletCall;
    try {
      call = adapter.parseWalletCall(action, body);
    } catch (error) {
      if (!(error instanceof WalletCallRefused)) throw error;
      return this.#refused(adapter, known, action, error.reason, body, log, ValidationError.field('body', error.message));
    }
    // The same request again: its first answer, worded again from this body (the same, by its hash).
    if (first !== undefined) return adapter.walletAnswer(call, keptAnswer(first.answer), body);
    // The wallet function decides on the provider's status as committed (PROVIDER_DISABLED), and
    // keeps the answer under the request id in the same statement.
    const { answer, kept } = await this.#apply(provider.id, call, rawBody, request, { requestId: requestId ?? null, bodyHash });
    if (answer.status !== 'OK') log.info({ provider: provider.code, action, status: answer.status }, 'wallet call refused');
    if (requestId === undefined || kept) return adapter.walletAnswer(call, answer, body);
    // A concurrent delivery of the same request answered first: both are answered its words.
    const [again] = await this.#memo.find.execute({ providerId: provider.id, requestId });
    if (again === undefined) return adapter.walletAnswer(call, answer, body);
    if (again.bodyHash !== bodyHash) return this.#reused(adapter, known, action, body, log);
    return adapter.walletAnswer(call, keptAnswer(again.answer), body);
  }

  /** The adapter a call is for: the provider's, and only by its own paths when it has them. */
  #adapterOf(known: KnownProvider, request: ProviderCallback): GameProviderAdapter {
    const adapter = this.#adapters.get(known.row.adapter);
    if (adapter === undefined) {
      request.log.error(
        { provider: known.row.code, adapter: known.row.adapter },
        'wallet call for a provider whose adapter this instance lacks',
      );
      throw new NotFoundError();
    }
    const ownPaths = adapter.walletPaths !== undefined;
    if (ownPaths !== (request.via !== undefined) || (request.via !== undefined && request.via !== adapter.code)) throw new NotFoundError();
    return adapter;
  }

  #actionOf(adapter: GameProviderAdapter, request: ProviderCallback): WalletAction {
    if (adapter.walletPaths === undefined) {
      if (!isWalletAction(request.action)) throw new NotFoundError();
      return request.action;
    }
    const action = Object.hasOwn(adapter.walletPaths, request.action) ? adapter.walletPaths[request.action] : undefined;
    if (action === undefined) throw new NotFoundError();
    return action;
  }

  /** Throws WebhookSignatureError unless the call is signed with the provider's key. */
  #verify(adapter: GameProviderAdapter, known: KnownProvider, request: ProviderCallback): void {
    const key = adapter.walletKey === undefined ? known.secret : adapter.walletKey(known.config);
    // Without a key nothing can be authenticated: the provider is refused whatever it sends.
    if (key === null || key === '') throw new WebhookSignatureError();
    adapter.verify(request.rawBody, request.headers, key, new Date());
  }

  /** A call refused before the wallet: in the protocol's words (HTTP 200) where it has them, else docs/api.md's error. */
  #refused(
    adapter: GameProviderAdapter,
    known: KnownProvider,
    action: WalletAction,
    reason: CallRefusal,
    body: unknown,
    log: Logger,
    otherwise: Error,
  ): Record<string, unknown> {
    log.info({ provider: known.row.code, action, refusal: reason }, 'wallet call refused before the wallet');
    if (adapter.refusal === undefined) throw otherwise;
    return adapter.refusal(reason, body);
  }

  /** The same request id with other content is not the same request, and changes nothing. */
  #reused(adapter: GameProviderAdapter, known: KnownProvider, action: WalletAction, body: unknown, log: Logger): Record<string, unknown> {
    return this.#refused(
      adapter,
      known,
      action,
      'REQUEST_REUSED',
      body,
      log,
      ValidationError.field('body', 'The request id was used before.'),
    );
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
    const keys = this.#ctx.keys;
    const known = {
      row,
      secret: row.walletSecret === null ? null : keys.decrypt(row.walletSecret),
      config: openConfig(this.#adapters.get(row.adapter)?.config, row.adapterConfig, keys),
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
  async #apply(
    providerId: number,
    call: WalletCall,
    payload: string,
    request: ProviderCallback,
    memo: { requestId: string | null; bodyHash: string },
  ): Promise<Applied> {
    const statements = this.#statements;
    const { log } = request;
    switch (call.action) {
      case 'player': {
        const [row] = await retrying(() => statements.player.execute({ providerId, userId: call.player, ...memo }));
        return answerOf(row!, null);
      }
      case 'balance': {
        const session = randomAlphanumeric(SESSION_TOKEN_LENGTH);
        const [row] = await retrying(() =>
          statements.balance.execute({
            providerId,
            ...memo,
            tokenHash: sha256(call.token),
            sessionHash: sha256(session),
            userId: call.player ?? null,
          }),
        );
        return answerOf(row!, session);
      }
      case 'bet': {
        const [row] = await retrying(() =>
          statements.bet.execute({
            providerId,
            ...memo,
            tokenHash: sha256(call.token),
            transactionId: call.transactionId,
            roundId: call.roundId,
            game: call.game,
            amount: call.amount,
            currency: call.currency,
            payload,
            roundClosed: call.roundClosed ?? false,
            userId: call.player ?? null,
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
            ...memo,
            transactionId: call.transactionId,
            betTransactionId: call.betTransactionId,
            roundId: call.roundId,
            amount: call.amount,
            currency: call.currency,
            roundClosed: call.roundClosed,
            payload,
            userId: call.player ?? null,
            // A win over the ceiling is held, and its alert names the call (db/functions/provider_wallet_win.sql).
            requestPath: request.path.split('?')[0]!.slice(0, 2048),
            requestIp: request.ip,
          }),
        );
        if (row!.outcome === 'OK' && !row!.replayed && call.amount > 0n) this.#ctx.money.ledgerLine('win', call.amount);
        return answerOf(row!, null);
      }
      case 'refund': {
        const [row] = await retrying(() =>
          statements.refund.execute({
            providerId,
            ...memo,
            transactionId: call.transactionId,
            betTransactionId: call.betTransactionId,
            payload,
            userId: call.player ?? null,
            rollback: call.rollback ?? false,
          }),
        );
        if (row!.outcome === 'OK' && !row!.replayed && row!.userId !== null && row!.transactionRef !== null) {
          await this.#reportRefund(Number(row!.transactionRef), log);
        }
        return answerOf(row!, null);
      }
    }
  }
}
