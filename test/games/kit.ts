// What the conformance kit's tests share: a seated player at a provider of the adapter under
// test, and the calls they make there, in our terms.
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { providerBets } from '../../src/modules/games/seamless-wallet/tables.ts';
import type { SignedIn, TestApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import {
  betTokens,
  createGame,
  launch,
  send,
  type KitCall,
  type KitAnswer,
  type Launched,
  type Sent,
  type TestProvider,
  type WalletDriver,
} from './helpers.ts';
import type { WalletStatus } from '../../src/modules/games/adapters/adapter.ts';

export type BetCall = Extract<KitCall, { action: 'bet' }>;

export interface Table {
  provider: TestProvider;
  game: { id: number; code: string };
  player: SignedIn;
  launched: Launched;
  /** The session token the launch token was redeemed for. */
  session: string;
}

let ids = 0;
/** A transaction or round id no other call of the run uses. */
export const nextId = (what: string) => `${what}-${process.pid}-${++ids}`;

/**
 * A provider of the driver's adapter, one of its games, a player funded with `cents` and a
 * launch whose session is open (a redeemed launch token, or the session token itself for a
 * provider that keeps one); `beside` seats another player at its provider and game.
 */
export async function seat(t: TestApp, driver: WalletDriver, cents = 10_000n, beside?: Table): Promise<Table> {
  const at = beside?.provider ?? (await driver.createProvider(t, {}));
  const game = beside?.game ?? (await createGame(t, at.id));
  const player = await t.player();
  if (cents > 0n) await fund(t, player.id, cents);
  const launched = await launch(t, { userId: player.id, providerId: at.id, gameId: game.id, session: driver.launchToken === 'session' });
  const opened = await send(t, driver, at, { action: 'balance', token: launched.token });
  assert.equal(opened.answer?.status, driver.word('OK'), opened.res.text);
  const session = driver.launchToken === 'session' ? launched.token : opened.answer.session!;
  return { provider: at, game, player, launched, session };
}

/** A bet of `amount` cents at the table, in a round of its own unless `overrides` says otherwise. */
export function betAt(s: Table, amount: bigint, overrides: Partial<BetCall> = {}): BetCall {
  const bet: BetCall = {
    action: 'bet',
    token: s.session,
    transactionId: nextId('bet'),
    roundId: nextId('round'),
    game: s.game.code,
    amount,
    ...overrides,
  };
  betTokens.set(bet.transactionId, bet.token);
  return bet;
}

/** Asserts an answer's status (in the protocol's words) and, where the protocol carries one with it, its balance. */
export function answered(driver: WalletDriver, sent: Sent, status: WalletStatus, balance?: bigint | null): void {
  const answer: KitAnswer | undefined = sent.answer;
  assert.equal(answer?.status, driver.word(status), sent.res.text);
  if (balance !== undefined && driver.carriesBalance(status)) assert.equal(answer?.balance, balance, sent.res.text);
}

/** The provider's rounds, oldest first. */
export async function roundsAt(t: TestApp, providerId: number) {
  return t.db.select().from(providerBets).where(eq(providerBets.providerId, providerId)).orderBy(providerBets.id);
}
