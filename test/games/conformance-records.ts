// The conformance kit's part on what a transaction id stands for (docs/games.md, "Rules"): a
// replay answers the first outcome and moves nothing, the same id asking for something else (or
// for another player) is refused without showing the first call, concurrent deliveries apply
// once, and each call is kept with its body, credentials redacted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { providerTransactions } from '../../src/modules/games/seamless-wallet/tables.ts';
import { rows } from '../../src/platform/db/client.ts';
import type { TestApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from '../wallet/helpers.ts';
import { send, type KitCall, type WalletDriver } from './helpers.ts';
import { answered, betAt, nextId, roundsAt, seat } from './kit.ts';

/** Registers the kit's tests on transaction ids inside `walletConformance`'s suite (its app). */
export function recordConformance(ctx: () => TestApp, driver: WalletDriver): void {
  test('a bet takes the stake once with a `bet` line and opens its round; its replay answers OK with the current balance and moves nothing', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const call = betAt(s, 1_000n);
    const first = await send(t, driver, s.provider, call);
    answered(driver, first, 'OK', 9_000n);
    // Another bet moves the balance; the replay of the first answers with the balance as it is now.
    answered(driver, await send(t, driver, s.provider, betAt(s, 500n)), 'OK');
    const replay = await send(t, driver, s.provider, call);
    answered(driver, replay, 'OK', 8_500n);
    assert.equal(await balanceOf(t.db, s.player.id), 8_500n);
    const lines = (await ledgerOf(t.db, s.player.id)).filter((line) => line.type === 'bet');
    assert.deepEqual(
      lines.map((line) => line.amount),
      [-1_000n, -500n],
    );
    const [round] = await roundsAt(t, s.provider.id);
    assert.deepEqual([round!.betAmount, round!.winAmount, round!.status, round!.userId], [1_000n, 0n, 0, s.player.id]);
    // Bets count into the withdrawal turnover.
    const [turnover] = await rows<{ bet_turnover: string }>(t.db, sql`select bet_turnover from balances where user_id = ${s.player.id}`);
    assert.equal(turnover!.bet_turnover, '1500');
  });

  test('the same transaction id with another amount or kind is DUPLICATE_MISMATCH and moves nothing', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const call = betAt(s, 1_000n);
    answered(driver, await send(t, driver, s.provider, call), 'OK');
    const changed = await send(t, driver, s.provider, { ...call, amount: 2_000n });
    answered(driver, changed, 'DUPLICATE_MISMATCH', 9_000n);
    const asWin = await send(t, driver, s.provider, {
      action: 'win',
      transactionId: call.transactionId,
      betTransactionId: call.transactionId,
      roundId: call.roundId,
      amount: 1_000n,
    });
    answered(driver, asWin, 'DUPLICATE_MISMATCH');
    assert.equal(await balanceOf(t.db, s.player.id), 9_000n);
    assert.equal((await ledgerOf(t.db, s.player.id)).length, 2);
  });

  test('20 concurrent bets of 10.00 against 100.00: 10 are taken, 10 are INSUFFICIENT_FUNDS with the balance, never below zero', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(t, driver, s.provider, betAt(s, 1_000n))));
    const statuses = answers.map((sent) => sent.answer?.status).sort();
    assert.deepEqual(
      statuses,
      [...Array<string>(10).fill(driver.word('INSUFFICIENT_FUNDS')), ...Array<string>(10).fill(driver.word('OK'))].sort(),
    );
    for (const sent of answers.filter((answer) => answer.answer?.status === driver.word('INSUFFICIENT_FUNDS'))) {
      assert.equal(sent.answer?.balance, 0n);
    }
    assert.deepEqual(
      answers.map((sent) => sent.answer!.balance! >= 0n),
      Array<boolean>(20).fill(true),
    );
    assert.equal(await balanceOf(t.db, s.player.id), 0n);
    assert.equal((await ledgerOf(t.db, s.player.id)).filter((line) => line.type === 'bet').length, 10);
  });

  test('20 concurrent deliveries of one bet take the stake once and all answer OK', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const call = betAt(s, 1_000n);
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(t, driver, s.provider, call)));
    assert.deepEqual(
      new Set(answers.map((sent) => sent.answer?.status)),
      new Set([driver.word('OK')]),
      answers.map((a) => a.res.text).join('\n'),
    );
    assert.equal(await balanceOf(t.db, s.player.id), 9_000n);
    const recorded = await t.db.select().from(providerTransactions).where(eq(providerTransactions.providerId, s.provider.id));
    assert.equal(recorded.filter((row) => row.kind === 'bet').length, 1);
    assert.deepEqual(
      (await roundsAt(t, s.provider.id)).map((round) => round.betAmount),
      [1_000n],
    );
  });

  test('bets and their refunds sent at once: whichever lands first, every stake ends where it began', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const pairs = Array.from({ length: 10 }, () => betAt(s, 1_000n));
    const answers = await Promise.all(
      pairs.flatMap((placed) => [
        send(t, driver, s.provider, placed),
        send(t, driver, s.provider, { action: 'refund', transactionId: nextId('refund'), betTransactionId: placed.transactionId }),
      ]),
    );
    for (const [i, sent] of answers.entries()) {
      const expected = (i % 2 === 0 ? (['OK', 'BET_REFUNDED'] as const) : (['OK'] as const)).map((status) => driver.word(status));
      assert.ok(expected.includes(sent.answer?.status ?? sent.res.text), `${i}: ${sent.res.text}`);
    }
    assert.equal(await balanceOf(t.db, s.player.id), 10_000n);
    const lines = await ledgerOf(t.db, s.player.id);
    assert.equal(lines.filter((line) => line.type === 'bet').length, lines.filter((line) => line.type === 'bet_refund').length);
  });

  test('a bet’s transaction id sent again with another player’s token is DUPLICATE_MISMATCH with that player’s own balance; nothing moves', async () => {
    const t = ctx();
    const alice = await seat(t, driver, 10_000n);
    const bob = await seat(t, driver, 3_000n, alice);
    const call = betAt(alice, 1_000n);
    assert.deepEqual((await send(t, driver, alice.provider, call)).answer, {
      status: driver.word('OK'),
      balance: 9_000n,
      session: undefined,
    });

    // The same call in every field but the token: Bob's session, or a token naming no session.
    const asBob = await send(t, driver, alice.provider, { ...call, token: bob.session });
    answered(driver, asBob, 'DUPLICATE_MISMATCH', 3_000n);
    const asNobody = await send(t, driver, alice.provider, { ...call, token: 'n'.repeat(48) });
    answered(driver, asNobody, 'DUPLICATE_MISMATCH', null);
    // Alice's own replay is still a replay.
    const again = await send(t, driver, alice.provider, call);
    answered(driver, again, 'OK', 9_000n);

    assert.deepEqual([await balanceOf(t.db, alice.player.id), await balanceOf(t.db, bob.player.id)], [9_000n, 3_000n]);
    assert.deepEqual(
      (await ledgerOf(t.db, bob.player.id)).map((line) => line.type),
      ['adjustment'],
    );
    assert.deepEqual(
      (await roundsAt(t, alice.provider.id)).map((round) => [round.userId, round.betAmount]),
      [[alice.player.id, 1_000n]],
    );
  });

  test('a win’s or a refund’s transaction id reused for another player’s bet is DUPLICATE_MISMATCH with that player’s balance; nothing is paid or given back', async () => {
    const t = ctx();
    const alice = await seat(t, driver, 10_000n);
    const bob = await seat(t, driver, 3_000n, alice);
    const [aliceBet, aliceLost, bobBet] = [betAt(alice, 1_000n), betAt(alice, 2_000n), betAt(bob, 500n)];
    for (const placed of [aliceBet, aliceLost, bobBet]) answered(driver, await send(t, driver, alice.provider, placed), 'OK');
    const win: KitCall = {
      action: 'win',
      transactionId: nextId('win'),
      betTransactionId: aliceBet.transactionId,
      roundId: aliceBet.roundId,
      amount: 4_000n,
    };
    assert.deepEqual((await send(t, driver, alice.provider, win)).answer?.balance, 11_000n);
    const refund: KitCall = { action: 'refund', transactionId: nextId('refund'), betTransactionId: aliceLost.transactionId };
    assert.deepEqual((await send(t, driver, alice.provider, refund)).answer?.balance, 13_000n);

    const winForBob = await send(t, driver, alice.provider, { ...win, betTransactionId: bobBet.transactionId, roundId: bobBet.roundId });
    answered(driver, winForBob, 'DUPLICATE_MISMATCH', 2_500n);
    const refundForBob = await send(t, driver, alice.provider, { ...refund, betTransactionId: bobBet.transactionId });
    answered(driver, refundForBob, 'DUPLICATE_MISMATCH', 2_500n);
    // Naming a bet nobody placed, the call names no player: no balance at all.
    const unknown = await send(t, driver, alice.provider, { ...refund, betTransactionId: nextId('bet') });
    answered(driver, unknown, 'DUPLICATE_MISMATCH', null);

    assert.deepEqual([await balanceOf(t.db, alice.player.id), await balanceOf(t.db, bob.player.id)], [13_000n, 2_500n]);
    assert.deepEqual(
      (await ledgerOf(t.db, bob.player.id)).map((line) => line.type),
      ['adjustment', 'bet'],
    );
  });

  test('every money call is kept with its signed body and the outcome answered; the token in it is stored as [redacted]', async () => {
    const t = ctx();
    const s = await seat(t, driver);
    const won = betAt(s, 1_000n);
    const placed = await send(t, driver, s.provider, won);
    const refused = await send(t, driver, s.provider, betAt(s, 1_000_000n));
    const paid = await send(t, driver, s.provider, {
      action: 'win',
      transactionId: nextId('win'),
      betTransactionId: won.transactionId,
      roundId: won.roundId,
      amount: 300n,
    });
    const recorded = await t.db
      .select()
      .from(providerTransactions)
      .where(eq(providerTransactions.providerId, s.provider.id))
      .orderBy(providerTransactions.id);
    assert.deepEqual(
      recorded.map((row) => [row.kind, row.amount, row.outcome]),
      [
        ['bet', 1_000n, 'OK'],
        ['bet', 1_000_000n, 'INSUFFICIENT_FUNDS'],
        ['win', 300n, 'OK'],
      ],
    );
    // Whatever the protocol calls its token field, the session token is kept nowhere.
    const redacted = (raw: string): unknown => JSON.parse(raw, (_key, value: unknown) => (value === s.session ? '[redacted]' : value));
    assert.deepEqual(
      recorded.map((row) => row.payload),
      [redacted(placed.raw), redacted(refused.raw), redacted(paid.raw)],
    );
    assert.ok(placed.raw.includes(s.session), 'the bets carried the token');
    assert.equal(JSON.stringify(recorded.map((row) => row.payload)).includes(s.session), false);
  });
}
