// The seamless-wallet conformance kit (igaming.md 2.3): the same behaviours, run against every
// adapter through its own wire format, so an adapter can only translate, never change a rule.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { providerGames, providers } from '../../src/modules/games/tables.ts';
import { users } from '../../src/modules/users/tables.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { rows } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { fund } from '../withdrawals/helpers.ts';
import { recordConformance } from './conformance-records.ts';
import { HubLikeAdapter } from './hub-adapter.ts';
import { createGame, endSession, expireLaunch, launch, send, type KitCall, type WalletDriver } from './helpers.ts';
import { answered, betAt, nextId, roundsAt, seat } from './kit.ts';

export function walletConformance(driver: WalletDriver): void {
  describe(`seamless wallet conformance: adapter ${driver.adapter}`, () => {
    const ctx = useApp({}, { gameAdapters: [new HubLikeAdapter()] });

    if (driver.launchToken === 'redeem') {
      test('a launch token is redeemed once: the first balance call answers the balance and a session, the second is INVALID_TOKEN', async () => {
        const t = ctx();
        const provider = await driver.createProvider(t, {});
        const game = await createGame(t, provider.id);
        const player = await t.player();
        await fund(t, player.id, 2_550n);
        const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });

        const first = await send(t, driver, provider, { action: 'balance', token: launched.token });
        assert.equal(first.res.status, 200);
        assert.deepEqual(
          { ...first.answer, session: typeof first.answer?.session },
          { status: driver.word('OK'), balance: 2_550n, session: 'string' },
        );
        const again = await send(t, driver, provider, { action: 'balance', token: launched.token });
        answered(driver, again, 'INVALID_TOKEN');
        assert.equal(again.answer?.session, undefined);
        // The session token it gave is what later calls carry.
        const later = await send(t, driver, provider, { action: 'balance', token: first.answer!.session! });
        answered(driver, later, 'OK', 2_550n);
        // The provider's code names it too, as its id does.
        const byCode = await send(t, driver, provider, { action: 'balance', token: first.answer!.session! }, { provider: provider.code });
        answered(driver, byCode, 'OK');
      });

      test('a launch token past its 120 seconds is TOKEN_EXPIRED; a token nobody issued is INVALID_TOKEN', async () => {
        const t = ctx();
        const provider = await driver.createProvider(t, {});
        const game = await createGame(t, provider.id);
        const player = await t.player();
        const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
        await expireLaunch(t, launched.id);
        answered(driver, await send(t, driver, provider, { action: 'balance', token: launched.token }), 'TOKEN_EXPIRED');
        answered(driver, await send(t, driver, provider, { action: 'balance', token: 'x'.repeat(40) }), 'INVALID_TOKEN');
        // Another provider's launch is not this provider's to redeem.
        const other = await driver.createProvider(t, {});
        const theirs = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
        answered(driver, await send(t, driver, other, { action: 'balance', token: theirs.token }), 'INVALID_TOKEN');
      });
    } else {
      test('the token a launch hands over is the session’s: every balance call answers the balance, by the provider’s id or code, until the session ends', async () => {
        const t = ctx();
        const provider = await driver.createProvider(t, {});
        const game = await createGame(t, provider.id);
        const player = await t.player();
        await fund(t, player.id, 2_550n);
        const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, session: true });
        for (let call = 0; call < 3; call++) {
          const balance = await send(t, driver, provider, { action: 'balance', token: launched.token });
          assert.equal(balance.res.status, 200);
          answered(driver, balance, 'OK', 2_550n);
          assert.equal(balance.answer?.session, undefined, 'no other token is issued');
        }
        answered(
          driver,
          await send(t, driver, provider, { action: 'balance', token: launched.token }, { provider: provider.code }),
          'OK',
          2_550n,
        );
        await endSession(t, launched.id);
        answered(driver, await send(t, driver, provider, { action: 'balance', token: launched.token }), 'TOKEN_EXPIRED');
      });

      test('a token nobody issued, or issued for another provider, is INVALID_TOKEN', async () => {
        const t = ctx();
        const provider = await driver.createProvider(t, {});
        const game = await createGame(t, provider.id);
        const player = await t.player();
        answered(driver, await send(t, driver, provider, { action: 'balance', token: 'x'.repeat(40) }), 'INVALID_TOKEN');
        const other = await driver.createProvider(t, {});
        const theirs = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, session: true });
        answered(driver, await send(t, driver, other, { action: 'balance', token: theirs.token }), 'INVALID_TOKEN');
      });
    }

    test('a win credits once with a `win` line and settles the round when it closes it; a win of 0 closes a lost round without a line', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      await send(t, driver, s.provider, placed);
      const win: KitCall = {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 2_550n,
        roundClosed: true,
      };
      const paid = await send(t, driver, s.provider, win);
      answered(driver, paid, 'OK', 11_550n);
      const replay = await send(t, driver, s.provider, win);
      answered(driver, replay, 'OK', 11_550n);
      answered(driver, await send(t, driver, s.provider, { ...win, amount: 1n }), 'DUPLICATE_MISMATCH');

      const lost = betAt(s, 300n);
      await send(t, driver, s.provider, lost);
      const closed = await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: lost.transactionId,
        roundId: lost.roundId,
        amount: 0n,
        roundClosed: true,
      });
      answered(driver, closed, 'OK', 11_250n);
      const [won, gone] = await roundsAt(t, s.provider.id);
      assert.deepEqual([won!.winAmount, won!.status, won!.settledAt !== null], [2_550n, 1, true]);
      assert.deepEqual([gone!.winAmount, gone!.status], [0n, 1]);
      assert.deepEqual(
        (await ledgerOf(t.db, s.player.id)).map((line) => [line.type, line.amount]),
        [
          ['adjustment', 10_000n],
          ['bet', -1_000n],
          ['win', 2_550n],
          ['bet', -300n],
        ],
      );
      // A bet into a round a win closed is refused.
      const late = await send(t, driver, s.provider, betAt(s, 100n, { roundId: lost.roundId }));
      answered(driver, late, 'ROUND_CLOSED', 11_250n);
    });

    test('a win naming no bet is BET_NOT_FOUND and is not recorded: sent again after its bet arrived, it is paid', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      const win: KitCall = {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 500n,
      };
      answered(driver, await send(t, driver, s.provider, win), 'BET_NOT_FOUND');
      await send(t, driver, s.provider, placed);
      const paid = await send(t, driver, s.provider, win);
      answered(driver, paid, 'OK', 9_500n);
      // A win in another round or currency than its bet's is refused.
      const other = await send(t, driver, s.provider, { ...win, transactionId: nextId('win'), roundId: nextId('round') });
      answered(driver, other, 'ROUND_MISMATCH');
      const foreign = await send(t, driver, s.provider, { ...win, transactionId: nextId('win'), currency: 'USD' });
      answered(driver, foreign, 'CURRENCY_MISMATCH');
      assert.equal(await balanceOf(t.db, s.player.id), 9_500n);
    });

    test('a refund gives the stake back once with a `bet_refund` line and marks the round refunded; a win on it is BET_REFUNDED', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      await send(t, driver, s.provider, placed);
      const refund: KitCall = { action: 'refund', transactionId: nextId('refund'), betTransactionId: placed.transactionId };
      const first = await send(t, driver, s.provider, refund);
      answered(driver, first, 'OK', 10_000n);
      answered(driver, await send(t, driver, s.provider, refund), 'OK');
      // Another refund id for the same bet: success, nothing more moves.
      const second = await send(t, driver, s.provider, { ...refund, transactionId: nextId('refund') });
      answered(driver, second, 'OK', 10_000n);
      const win = await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 5_000n,
      });
      answered(driver, win, 'BET_REFUNDED', 10_000n);
      const [round] = await roundsAt(t, s.provider.id);
      assert.deepEqual([round!.status, round!.refundAmount], [2, 1_000n]);
      assert.deepEqual(
        (await ledgerOf(t.db, s.player.id)).map((line) => line.type),
        ['adjustment', 'bet', 'bet_refund'],
      );
      // The refunded stake no longer counts into the withdrawal turnover.
      const [turnover] = await rows<{ bet_turnover: string }>(t.db, sql`select bet_turnover from balances where user_id = ${s.player.id}`);
      assert.equal(turnover!.bet_turnover, '0');
    });

    test('a refund of a round that paid a win is BET_SETTLED and moves nothing', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      await send(t, driver, s.provider, placed);
      await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 700n,
      });
      const refund = await send(t, driver, s.provider, {
        action: 'refund',
        transactionId: nextId('refund'),
        betTransactionId: placed.transactionId,
      });
      answered(driver, refund, 'BET_SETTLED', 9_700n);
    });

    test('a refund before its bet answers OK and leaves a tombstone: the bet arriving later is BET_REFUNDED and moves nothing', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      const refund = await send(t, driver, s.provider, {
        action: 'refund',
        transactionId: nextId('refund'),
        betTransactionId: placed.transactionId,
      });
      answered(driver, refund, 'OK');
      const late = await send(t, driver, s.provider, placed);
      answered(driver, late, 'BET_REFUNDED', 10_000n);
      answered(driver, await send(t, driver, s.provider, placed), 'BET_REFUNDED');
      assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
      assert.deepEqual(await roundsAt(t, s.provider.id), []);
      // Its win is refused too.
      const win = await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 100n,
      });
      answered(driver, win, 'BET_REFUNDED');
    });

    test('insufficient funds is answered with the balance and moves nothing; the refused bet stays refused when sent again', async () => {
      const t = ctx();
      const s = await seat(t, driver, 500n);
      const call = betAt(s, 501n);
      const refused = await send(t, driver, s.provider, call);
      answered(driver, refused, 'INSUFFICIENT_FUNDS', 500n);
      await fund(t, s.player.id, 1_000n);
      const again = await send(t, driver, s.provider, call);
      answered(driver, again, 'INSUFFICIENT_FUNDS', 1_500n);
      assert.equal(await balanceOf(t.db, s.player.id), 1_500n);
      assert.deepEqual(await roundsAt(t, s.provider.id), []);
      // Its refund needs nothing back.
      const refund = await send(t, driver, s.provider, {
        action: 'refund',
        transactionId: nextId('refund'),
        betTransactionId: call.transactionId,
      });
      answered(driver, refund, 'OK', 1_500n);
      assert.equal(await balanceOf(t.db, s.player.id), 1_500n);
    });

    test('after the session ended bets are TOKEN_EXPIRED, while wins and refunds are still applied', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      const other = betAt(s, 400n);
      await send(t, driver, s.provider, placed);
      await send(t, driver, s.provider, other);
      await endSession(t, s.launched.id);
      const expired = await send(t, driver, s.provider, betAt(s, 100n));
      answered(driver, expired, 'TOKEN_EXPIRED', 8_600n);
      answered(driver, await send(t, driver, s.provider, { action: 'balance', token: s.session }), 'TOKEN_EXPIRED');
      const win = await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 3_000n,
        roundClosed: true,
      });
      answered(driver, win, 'OK', 11_600n);
      const refund = await send(t, driver, s.provider, {
        action: 'refund',
        transactionId: nextId('refund'),
        betTransactionId: other.transactionId,
      });
      answered(driver, refund, 'OK', 12_000n);
    });

    test('a bad or stale signature is refused in the protocol’s way and changes nothing; a provider without a key refuses everything', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const call = betAt(s, 1_000n);
      const wrong = await send(t, driver, s.provider, call, { secret: driver.otherSecret });
      assert.ok(driver.refusedSignature(wrong.res), wrong.res.text);
      if (driver.timestamped) {
        const stale = await send(t, driver, s.provider, call, { at: Math.floor(Date.now() / 1000) - 330 });
        assert.ok(driver.refusedSignature(stale.res), stale.res.text);
        const future = await send(t, driver, s.provider, call, { at: Math.floor(Date.now() / 1000) + 330 });
        assert.ok(driver.refusedSignature(future.res), future.res.text);
      }
      // The signature covers the bytes: the same body with one more space is refused.
      const body = JSON.stringify(driver.body(call));
      const tampered = await t.app.inject({
        method: 'POST',
        url: driver.path(String(s.provider.id), 'bet'),
        headers: { 'content-type': 'application/json', ...driver.headers(s.provider.secret, body, Math.floor(Date.now() / 1000)) },
        payload: `${body} `,
      });
      assert.ok(
        driver.refusedSignature({
          status: tampered.statusCode,
          headers: tampered.headers,
          text: tampered.body,
          json: tampered.json(),
          cookies: [],
        }),
      );
      assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
      assert.deepEqual(await roundsAt(t, s.provider.id), []);

      const unkeyed = await driver.createProvider(t, { keyless: true });
      const refused = await send(t, driver, unkeyed, { action: 'balance', token: s.session });
      assert.ok(driver.refusedSignature(refused.res), refused.res.text);
    });

    test('an unknown provider or action is 404; a body the adapter cannot read is refused in the protocol’s way and changes nothing', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      assert.equal((await send(t, driver, s.provider, betAt(s, 100n), { provider: '999999' })).res.status, 404);
      assert.equal((await send(t, driver, s.provider, betAt(s, 100n), { provider: 'no-such-provider' })).res.status, 404);
      const unknownAction = await t.app.inject({
        method: 'POST',
        url: driver.path(String(s.provider.id), 'bet').replace(/[^/]+$/, 'jackpot'),
        payload: {},
      });
      assert.deepEqual([unknownAction.statusCode, unknownAction.json()], [404, { message: 'Not found.' }]);
      const malformed = await send(t, driver, s.provider, betAt(s, 100n), { raw: JSON.stringify({ amount: 'lots' }) });
      assert.ok(driver.refusedBody(malformed.res), malformed.res.text);
      assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    });

    test('a bet on a game that is not the session’s, or is disabled, is GAME_NOT_FOUND; in another currency CURRENCY_MISMATCH', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      answered(driver, await send(t, driver, s.provider, betAt(s, 100n, { game: 'no-such-game' })), 'GAME_NOT_FOUND');
      const sibling = await createGame(t, s.provider.id);
      answered(driver, await send(t, driver, s.provider, betAt(s, 100n, { game: sibling.code })), 'GAME_NOT_FOUND');
      answered(driver, await send(t, driver, s.provider, betAt(s, 100n, { currency: 'USD' })), 'CURRENCY_MISMATCH');
      await t.db.update(providerGames).set({ status: 0 }).where(eq(providerGames.id, s.game.id));
      const disabled = await send(t, driver, s.provider, betAt(s, 100n));
      answered(driver, disabled, 'GAME_NOT_FOUND', 10_000n);
      assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    });

    test('a disabled player’s bets are PLAYER_DISABLED (for good), while their wins are paid', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      await send(t, driver, s.provider, placed);
      await t.db.update(users).set({ status: 0 }).where(eq(users.id, s.player.id));
      const refusedBet = betAt(s, 100n);
      const refused = await send(t, driver, s.provider, refusedBet);
      answered(driver, refused, 'PLAYER_DISABLED', 9_000n);
      answered(driver, await send(t, driver, s.provider, { action: 'balance', token: s.session }), 'PLAYER_DISABLED');
      const win = await send(t, driver, s.provider, {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 2_000n,
        roundClosed: true,
      });
      answered(driver, win, 'OK', 11_000n);
      // The refusal is the bet's outcome for good: enabled again, its replay is still refused.
      await t.db.update(users).set({ status: 1 }).where(eq(users.id, s.player.id));
      answered(driver, await send(t, driver, s.provider, refusedBet), 'PLAYER_DISABLED');
      assert.equal(await balanceOf(t.db, s.player.id), 11_000n);
    });

    test('a disabled provider refuses every call with PROVIDER_DISABLED, unrecorded: enabled again, the same win is paid', async () => {
      const t = ctx();
      const s = await seat(t, driver);
      const placed = betAt(s, 1_000n);
      await send(t, driver, s.provider, placed);
      await t.db.update(providers).set({ status: 0 }).where(eq(providers.id, s.provider.id));
      const win: KitCall = {
        action: 'win',
        transactionId: nextId('win'),
        betTransactionId: placed.transactionId,
        roundId: placed.roundId,
        amount: 500n,
      };
      for (const call of [{ action: 'balance', token: s.session } as const, betAt(s, 100n), win]) {
        answered(driver, await send(t, driver, s.provider, call), 'PROVIDER_DISABLED');
      }
      await t.db.update(providers).set({ status: 1 }).where(eq(providers.id, s.provider.id));
      const paid = await send(t, driver, s.provider, win);
      answered(driver, paid, 'OK', 9_500n);
    });

    test('a demo session refuses every money call: its launch token and its session token are INVALID_TOKEN', async () => {
      const t = ctx();
      const provider = await driver.createProvider(t, {});
      const game = await createGame(t, provider.id);
      const player = await t.player();
      await fund(t, player.id, 1_000n);
      const demo = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id, demo: true });
      answered(driver, await send(t, driver, provider, { action: 'balance', token: demo.token }), 'INVALID_TOKEN');
      // Even with a session token set for it (as the demo game server does for its own launches).
      await t.db.execute(
        sql`update game_sessions set session_token_hash = encode(sha256(convert_to('demo-session-token-x', 'UTF8')), 'hex'), redeemed_at = now() where id = ${demo.id}`,
      );
      const placed = await send(t, driver, provider, {
        action: 'bet',
        token: 'demo-session-token-x',
        transactionId: nextId('bet'),
        roundId: nextId('round'),
        game: game.code,
        amount: 100n,
      });
      answered(driver, placed, 'INVALID_TOKEN');
      assert.equal(await balanceOf(t.db, player.id), 1_000n);
    });

    recordConformance(ctx, driver);

    test('ledger:verify is clean after every call of the kit', async () => {
      assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
    });
  });
}
