// The seamless wallet's outcomes are declared once, in TypeScript (WALLET_STATUSES); the SQL
// functions db/functions/provider_wallet_*.sql answer them. This calls every function through
// every outcome it can answer, as the service calls them (the prepared statements, with the
// codes and the session life they are handed), and checks that what the SQL answered is exactly
// what is declared: no outcome the TypeScript does not know, none declared that no call reaches.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import type { Regulation } from '../../src/config.ts';
import { WALLET_STATUSES, type WalletAction, type WalletStatus } from '../../src/modules/games/adapters/adapter.ts';
import { SESSION_LIFE_S } from '../../src/modules/games/launch/service.ts';
import { reviewHeldWin } from '../../src/modules/games/held-wins/repository.ts';
import { prepareWalletStatements, walletAnswerFields, type WalletAnswerRow } from '../../src/modules/games/seamless-wallet/repository.ts';
import { gameSessions } from '../../src/modules/games/tables.ts';
import { users } from '../../src/modules/users/tables.ts';
import { randomAlphanumeric, sha256 } from '../../src/platform/crypto.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp, type TestApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { createGame, createProvider, endSession, expireLaunch, launch, type KitCall, type TestProvider } from './helpers.ts';
import { nextId } from './kit.ts';

const FUNCTIONS = new URL('../../db/functions/', import.meta.url);

/** What each function can answer: together they must be WALLET_STATUSES. */
const REACHABLE: Record<WalletAction, WalletStatus[]> = {
  balance: ['OK', 'INVALID_TOKEN', 'TOKEN_EXPIRED', 'PLAYER_DISABLED', 'PROVIDER_DISABLED'],
  // Every outcome but those only a call naming a bet can meet, and a win's.
  bet: WALLET_STATUSES.filter((status) => !['BET_NOT_FOUND', 'BET_SETTLED', 'WIN_HELD', 'WIN_REFUSED'].includes(status)),
  win: [
    'OK',
    'PROVIDER_DISABLED',
    'BET_NOT_FOUND',
    'BET_REFUNDED',
    'ROUND_MISMATCH',
    'CURRENCY_MISMATCH',
    'DUPLICATE_MISMATCH',
    'WIN_HELD',
    'WIN_REFUSED',
  ],
  refund: ['OK', 'PROVIDER_DISABLED', 'BET_NOT_FOUND', 'BET_SETTLED', 'DUPLICATE_MISMATCH'],
  player: ['OK', 'INVALID_TOKEN', 'PLAYER_DISABLED', 'PROVIDER_DISABLED'],
};

const snake = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const payload = '{}';
/** No request id: the demo protocol's calls keep no answer (provider_request_keep). */
const memo = { requestId: null, bodyHash: '' };

/** The wallet functions as the service calls them; each answer is checked and counted by function. */
function walletOf(t: TestApp, regulation: Regulation = 'none', answered = new Map<WalletAction, Set<WalletStatus>>()) {
  const statements = prepareWalletStatements(t.db, regulation);
  async function expect(action: WalletAction, expected: WalletStatus, call: Promise<WalletAnswerRow[]>): Promise<WalletAnswerRow> {
    const [row] = await call;
    assert.equal(row?.outcome, expected, `${action} answered ${row?.outcome} where ${expected} was expected`);
    let seen = answered.get(action);
    if (seen === undefined) answered.set(action, (seen = new Set()));
    seen.add(row.outcome);
    return row;
  }
  return {
    answered,
    /** Redeems a launch token (the session token it issues is returned) or reads a session's balance. */
    async balance(expected: WalletStatus, provider: TestProvider, token: string): Promise<string> {
      const session = randomAlphanumeric(48);
      await expect(
        'balance',
        expected,
        statements.balance.execute({
          providerId: provider.id,
          tokenHash: sha256(token),
          sessionHash: sha256(session),
          userId: null,
          ...memo,
        }),
      );
      return session;
    },
    bet: (expected: WalletStatus, provider: TestProvider, bet: Bet) =>
      expect(
        'bet',
        expected,
        statements.bet.execute({
          providerId: provider.id,
          tokenHash: sha256(bet.token),
          currency: 'BRL',
          payload,
          roundClosed: false,
          userId: null,
          ...memo,
          ...bet,
        }),
      ),
    win: (expected: WalletStatus, provider: TestProvider, win: Win) =>
      expect(
        'win',
        expected,
        statements.win.execute({
          providerId: provider.id,
          currency: 'BRL',
          roundClosed: false,
          payload,
          userId: null,
          requestPath: null,
          requestIp: null,
          ...memo,
          ...win,
        }),
      ),
    refund: (expected: WalletStatus, provider: TestProvider, refund: { transactionId: string; betTransactionId: string }) =>
      expect(
        'refund',
        expected,
        statements.refund.execute({ providerId: provider.id, payload, userId: null, rollback: false, ...memo, ...refund }),
      ),
    player: (expected: WalletStatus, provider: TestProvider, userId: number) =>
      expect('player', expected, statements.player.execute({ providerId: provider.id, userId, ...memo })),
  };
}

type Bet = Omit<Extract<KitCall, { action: 'bet' }>, 'action'>;
type Win = Omit<Extract<KitCall, { action: 'win' }>, 'action'>;

describe('seamless wallet outcomes', () => {
  const ctx = useApp();

  test('every wallet function answers exactly the outcomes WALLET_STATUSES declares, and each declared outcome is answered', async () => {
    const t = ctx();
    const wallet = walletOf(t);
    const provider = await createProvider(t);
    const game = await createGame(t, provider.id);
    const disabled = await createProvider(t, { status: 0 });
    /** A funded player with a redeemed money session at the provider's game. */
    const seat = async (cents = 10_000n) => {
      const player = await t.player();
      await fund(t, player.id, cents);
      const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
      return { player, launched, session: await wallet.balance('OK', provider, launched.token) };
    };
    const bet = (token: string, overrides: Partial<Bet> = {}): Bet => ({
      token,
      transactionId: nextId('bet'),
      roundId: nextId('round'),
      game: game.code,
      amount: 100n,
      ...overrides,
    });

    // balance
    const alice = await seat();
    await wallet.balance('INVALID_TOKEN', provider, alice.launched.token);
    const late = await launch(t, { userId: alice.player.id, providerId: provider.id, gameId: game.id });
    await expireLaunch(t, late.id);
    await wallet.balance('TOKEN_EXPIRED', provider, late.token);
    await wallet.balance('PROVIDER_DISABLED', disabled, alice.session);
    const carol = await seat();
    await t.db.update(users).set({ status: 0 }).where(eq(users.id, carol.player.id));
    await wallet.balance('PLAYER_DISABLED', provider, carol.session);

    // bet
    const placed = bet(alice.session);
    await wallet.bet('OK', provider, placed);
    await wallet.bet('OK', provider, placed);
    await wallet.bet('DUPLICATE_MISMATCH', provider, { ...placed, amount: 200n });
    await wallet.bet('INSUFFICIENT_FUNDS', provider, bet(alice.session, { amount: 1_000_000n }));
    await wallet.bet('GAME_NOT_FOUND', provider, bet(alice.session, { game: 'no-such-game' }));
    await wallet.bet('CURRENCY_MISMATCH', provider, bet(alice.session, { currency: 'USD' }));
    await wallet.bet('INVALID_TOKEN', provider, bet(randomAlphanumeric(48)));
    await wallet.bet('PROVIDER_DISABLED', disabled, bet(alice.session));
    await wallet.bet('PLAYER_DISABLED', provider, bet(carol.session));
    const dave = await seat();
    await endSession(t, dave.launched.id);
    await wallet.bet('TOKEN_EXPIRED', provider, bet(dave.session));
    const erin = await seat();
    await wallet.bet('ROUND_MISMATCH', provider, bet(erin.session, { roundId: placed.roundId }));
    const won = bet(alice.session);
    await wallet.bet('OK', provider, won);
    await wallet.win('OK', provider, {
      transactionId: nextId('win'),
      betTransactionId: won.transactionId,
      roundId: won.roundId,
      amount: 50n,
      roundClosed: true,
    });
    await wallet.bet('ROUND_CLOSED', provider, bet(alice.session, { roundId: won.roundId }));
    // REGULATION=br: a verified player whose stake would pass their loss limit (1.00 a day, 1.00 already staked).
    const gina = await seat();
    await t.db.execute(
      sql`insert into user_identities (user_id, cpf, full_name, birth_date, status, verifier, verified_at)
        values (${gina.player.id}, '52998224725', 'Gina Silva', '1990-01-01', 'verified', 'manual', now())`,
    );
    await t.db.execute(
      sql`insert into user_limits (user_id, field, value) values (${gina.player.id}, 'loss_daily', 100), (${gina.player.id}, 'session_minutes', 60)`,
    );
    const regulated = walletOf(t, 'br', wallet.answered);
    await regulated.bet('OK', provider, bet(gina.session));
    await regulated.bet('LIMIT_REACHED', provider, bet(gina.session, { amount: 1n }));
    const unseen = nextId('bet');
    await wallet.refund('OK', provider, { transactionId: nextId('refund'), betTransactionId: unseen });
    await wallet.bet('BET_REFUNDED', provider, bet(alice.session, { transactionId: unseen }));

    // win
    const paid = { transactionId: nextId('win'), betTransactionId: placed.transactionId, roundId: placed.roundId, amount: 10n };
    await wallet.win('OK', provider, paid);
    await wallet.win('DUPLICATE_MISMATCH', provider, { ...paid, amount: 11n });
    await wallet.win('BET_NOT_FOUND', provider, { ...paid, transactionId: nextId('win'), betTransactionId: 'no-such-bet' });
    await wallet.win('BET_REFUNDED', provider, { ...paid, transactionId: nextId('win'), betTransactionId: unseen });
    await wallet.win('ROUND_MISMATCH', provider, { ...paid, transactionId: nextId('win'), roundId: 'another-round' });
    await wallet.win('CURRENCY_MISMATCH', provider, { ...paid, transactionId: nextId('win'), currency: 'USD' });
    await wallet.win('PROVIDER_DISABLED', disabled, { ...paid, transactionId: nextId('win') });
    // Over the operator's ceiling (10.00 here): held, and once refused its replays say so.
    await t.db.execute(
      sql`insert into settings (name, version, value) select 'games', max(version) + 1, '{"max_win": 1000}' from settings where name = 'games'`,
    );
    const over = { ...paid, transactionId: nextId('win'), amount: 1001n };
    const held = await wallet.win('WIN_HELD', provider, over);
    const [hold] = await rows<{ id: number }>(
      t.db,
      sql`select id from provider_win_holds where provider_transaction_id = ${held.transactionRef}`,
    );
    await reviewHeldWin(t.db, { id: Number(hold!.id), release: false, reviewerId: alice.player.id, reason: 'test' });
    await wallet.win('WIN_REFUSED', provider, over);

    // refund
    const refund = { transactionId: nextId('refund'), betTransactionId: won.transactionId };
    await wallet.refund('BET_SETTLED', provider, refund);
    await wallet.refund('BET_NOT_FOUND', provider, { transactionId: nextId('refund'), betTransactionId: paid.transactionId });
    const stake = bet(alice.session);
    await wallet.bet('OK', provider, stake);
    const given = { transactionId: nextId('refund'), betTransactionId: stake.transactionId };
    await wallet.refund('OK', provider, given);
    await wallet.refund('DUPLICATE_MISMATCH', provider, { ...given, betTransactionId: won.transactionId });
    await wallet.refund('PROVIDER_DISABLED', disabled, { transactionId: nextId('refund'), betTransactionId: placed.transactionId });

    // player (a player by id alone: Hub88's /user/info)
    await wallet.player('OK', provider, alice.player.id);
    await wallet.player('PLAYER_DISABLED', provider, carol.player.id);
    const stranger = await t.player();
    await wallet.player('INVALID_TOKEN', provider, stranger.id);
    await wallet.player('PROVIDER_DISABLED', disabled, alice.player.id);

    const answered = Object.fromEntries([...wallet.answered].map(([action, outcomes]) => [action, [...outcomes].sort()]));
    const reachable = Object.fromEntries(Object.entries(REACHABLE).map(([action, outcomes]) => [action, [...outcomes].sort()]));
    assert.deepEqual(answered, reachable);
    // Together the functions answer every declared outcome, and nothing else.
    assert.deepEqual([...new Set(Object.values(REACHABLE).flat())].sort(), [...WALLET_STATUSES].sort());
  });

  test('no wallet function names an outcome that WALLET_STATUSES does not declare', () => {
    const declared = new Set<string>(WALLET_STATUSES);
    const files = readdirSync(FUNCTIONS).filter((name) => name.startsWith('provider_wallet_'));
    assert.ok(files.length >= 4);
    for (const file of files) {
      const code = readFileSync(new URL(file, FUNCTIONS), 'utf8').replace(/--.*$/gm, '');
      for (const [, literal] of code.matchAll(/'([A-Z][A-Z_]+)'/g)) {
        assert.ok(declared.has(literal!), `${file} answers ${literal}, which WALLET_STATUSES does not declare`);
      }
    }
  });

  test('the row the service reads is the provider_wallet_answer type, column for column', async () => {
    const t = ctx();
    const columns = await rows<{ name: string }>(
      t.db,
      sql`select a.attname as name from pg_attribute a
        where a.attrelid = 'provider_wallet_answer'::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    );
    assert.deepEqual(
      columns.map((column) => column.name),
      Object.keys(walletAnswerFields).map(snake),
    );
  });

  test('an accepted bet moves its session’s end to SESSION_LIFE_S from now, at most once a minute', async () => {
    const t = ctx();
    const wallet = walletOf(t);
    const provider = await createProvider(t);
    const game = await createGame(t, provider.id);
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
    const session = await wallet.balance('OK', provider, launched.token);
    const left = async () => {
      const [row] = await rows<{ s: number }>(
        t.db,
        sql`select extract(epoch from expires_at - now())::int as s from game_sessions where id = ${launched.id}`,
      );
      return row!.s;
    };
    const place = () =>
      wallet.bet('OK', provider, { token: session, transactionId: nextId('bet'), roundId: nextId('round'), game: game.code, amount: 100n });

    // Within the last minute of a full life: left as it is, so spins do not rewrite the row.
    await t.db
      .update(gameSessions)
      .set({ expiresAt: sql`now() + make_interval(secs => ${SESSION_LIFE_S - 30})` })
      .where(eq(gameSessions.id, launched.id));
    await place();
    assert.ok(Math.abs((await left()) - (SESSION_LIFE_S - 30)) <= 2);
    // Older than that: moved to a full life from now.
    await t.db
      .update(gameSessions)
      .set({ expiresAt: sql`now() + interval '5 minutes'` })
      .where(eq(gameSessions.id, launched.id));
    await place();
    assert.ok(Math.abs((await left()) - SESSION_LIFE_S) <= 2);
  });
});
