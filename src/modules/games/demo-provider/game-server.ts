import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import { randomAlphanumeric, sha256 } from '../../../platform/crypto.ts';
import { NotFoundError } from '../../../platform/errors.ts';
import type { Logger } from '../../../platform/logger.ts';
import { toUnits } from '../../../platform/money.ts';
import { gameSessions, providerGames, providers } from '../tables.ts';
import { multiplier, spin, type SlotSymbol } from './paytable.ts';
import { WalletUnreachableError, type DemoWalletAnswer, type DemoWalletClient } from './wallet-client.ts';

/** What a demo launch plays with: credits that are worth nothing, held by the page. */
export const DEMO_CREDITS = 100_000n;
const SESSION_TOKEN_LENGTH = 48;
/** A win the wallet did not answer is sent again this many times (the same transaction id: applied once). */
const WIN_ATTEMPTS = 3;

export interface OpenResult {
  status: string;
  demo: boolean;
  session: string | null;
  balance: number | null;
  currency: string | null;
  game: string;
}

export interface SpinResult {
  status: string;
  reels: SlotSymbol[] | null;
  multiplier: number;
  win: number;
  balance: number | null;
  currency: string | null;
}

/** The page's request a wallet call is made for: its log, and its id, which the wallet call carries (one id across the spin and its bet and win). */
export interface Caller {
  /** The request id of the spin, carried to the wallet calls it causes. */
  id: string;
  log: Logger;
}

/** A launch of a `demo`-adapter provider's game, as the demo game server finds it by a token. */
interface DemoSession {
  id: number;
  demo: boolean;
  currency: string;
  expiresAt: Date;
  providerId: number;
  walletSecret: string | null;
  gameCode: string;
  gameName: string;
}

const sessionFields = {
  id: gameSessions.id,
  demo: gameSessions.demo,
  currency: gameSessions.currency,
  expiresAt: gameSessions.expiresAt,
  providerId: providers.id,
  walletSecret: providers.walletSecret,
  gameCode: providerGames.code,
  gameName: providerGames.name,
};

/**
 * The demo provider's game server, inside this process (docs/games.md, "Demo game"). It is a
 * provider like any other towards the wallet: it redeems the launch token with `balance`, then
 * for each spin sends a signed `bet` and a `win` (0 for a loss, closing the round). It reads our
 * database only to find which demo provider a token belongs to, that provider's secret and the
 * game's code, as a real provider knows its own. A demo launch plays with credits the page
 * holds and makes no wallet call at all.
 */
export class DemoGameServer {
  readonly #ctx: AppContext;
  readonly #wallet: DemoWalletClient;

  constructor(ctx: AppContext, wallet: DemoWalletClient) {
    this.#ctx = ctx;
    this.#wallet = wallet;
  }

  async #session(column: typeof gameSessions.launchTokenHash | typeof gameSessions.sessionTokenHash, token: string): Promise<DemoSession> {
    const [row] = await this.#ctx.db
      .select(sessionFields)
      .from(gameSessions)
      .innerJoin(providers, eq(providers.id, gameSessions.providerId))
      .innerJoin(providerGames, eq(providerGames.id, gameSessions.providerGameId))
      .where(and(eq(column, sha256(token)), eq(providers.adapter, 'demo')));
    if (row === undefined) throw new NotFoundError();
    return row;
  }

  #secret(session: DemoSession): { id: number; secret: string } | undefined {
    return session.walletSecret === null ? undefined : { id: session.providerId, secret: this.#ctx.keys.decrypt(session.walletSecret) };
  }

  /** The page's first call: redeems the launch token (once) for a session token. */
  async open(launchToken: string, caller: Caller): Promise<OpenResult> {
    const session = await this.#session(gameSessions.launchTokenHash, launchToken);
    const base = { demo: session.demo, game: session.gameName };
    if (session.demo) {
      const token = randomAlphanumeric(SESSION_TOKEN_LENGTH);
      const redeemed = await this.#ctx.db
        .update(gameSessions)
        .set({ redeemedAt: sql`now()`, sessionTokenHash: sha256(token) })
        .where(and(eq(gameSessions.id, session.id), isNull(gameSessions.redeemedAt), sql`${gameSessions.launchExpiresAt} > now()`))
        .returning({ id: gameSessions.id });
      if (redeemed.length === 0) return { ...base, status: 'INVALID_TOKEN', session: null, balance: null, currency: null };
      return { ...base, status: 'OK', session: token, balance: toUnits(DEMO_CREDITS), currency: session.currency };
    }
    const provider = this.#secret(session);
    const answer = provider === undefined ? undefined : await this.#call(provider, 'balance', { token: launchToken }, caller);
    if (answer === undefined) return { ...base, status: 'UNAVAILABLE', session: null, balance: null, currency: null };
    return { ...base, status: answer.status, session: answer.session ?? null, balance: answer.balance, currency: answer.currency };
  }

  /**
   * One spin: the reels are drawn first, then the stake is bet; a refused bet shows nothing of
   * them. `credits` are the page's play credits (cents) for a demo launch, ignored otherwise.
   */
  async spin(sessionToken: string, stake: bigint, credits: bigint | undefined, caller: Caller): Promise<SpinResult> {
    const session = await this.#session(gameSessions.sessionTokenHash, sessionToken);
    const reels = spin();
    const pays = multiplier(reels);
    const win = stake * BigInt(pays);
    const refused = (status: string, balance: number | null): SpinResult => ({
      status,
      reels: null,
      multiplier: 0,
      win: 0,
      balance,
      currency: session.currency,
    });

    if (session.demo) {
      const held = credits ?? 0n;
      if (session.expiresAt.getTime() <= Date.now()) return refused('TOKEN_EXPIRED', toUnits(held));
      if (held < stake) return refused('INSUFFICIENT_FUNDS', toUnits(held));
      return { status: 'OK', reels, multiplier: pays, win: toUnits(win), balance: toUnits(held - stake + win), currency: session.currency };
    }

    const provider = this.#secret(session);
    if (provider === undefined) return refused('UNAVAILABLE', null);
    const round = randomUUID();
    const betId = `${round}:bet`;
    const bet = await this.#call(
      provider,
      'bet',
      {
        token: sessionToken,
        transaction_id: betId,
        round_id: round,
        game: session.gameCode,
        amount: toUnits(stake),
        currency: session.currency,
      },
      caller,
    );
    if (bet === undefined) return refused('UNAVAILABLE', null);
    if (bet.status !== 'OK') return refused(bet.status, bet.balance);

    const settle = {
      transaction_id: `${round}:win`,
      bet_transaction_id: betId,
      round_id: round,
      amount: toUnits(win),
      currency: session.currency,
      round_closed: true,
    };
    let settled: DemoWalletAnswer | undefined;
    for (let attempt = 1; attempt <= WIN_ATTEMPTS && settled === undefined; attempt++) {
      settled = await this.#call(provider, 'win', settle, caller);
    }
    // Over the operator's ceiling (docs/games.md, "Held wins"): recorded, and credited only once staff release it.
    if (settled?.status === 'WIN_HELD') {
      return { status: 'WIN_HELD', reels, multiplier: pays, win: toUnits(win), balance: settled.balance, currency: session.currency };
    }
    if (settled?.status !== 'OK') {
      // The stake is taken and the round stays open: the round's record shows it to operators.
      caller.log.error({ round, status: settled?.status, win: toUnits(win) }, 'demo game could not settle a round; it stays open');
      return { status: 'UNSETTLED', reels, multiplier: pays, win: toUnits(win), balance: bet.balance, currency: session.currency };
    }
    return { status: 'OK', reels, multiplier: pays, win: toUnits(win), balance: settled.balance, currency: session.currency };
  }

  async #call(
    provider: { id: number; secret: string },
    action: 'balance' | 'bet' | 'win',
    body: Record<string, unknown>,
    caller: Caller,
  ): Promise<DemoWalletAnswer | undefined> {
    try {
      return await this.#wallet.call(provider, action, body, caller.id);
    } catch (error) {
      if (!(error instanceof WalletUnreachableError)) throw error;
      caller.log.error({ err: error, action, provider: provider.id }, 'the demo game got no answer from the wallet');
      return undefined;
    }
  }
}
