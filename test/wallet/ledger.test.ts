import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  applyLedgerOperation,
  IdempotencyMismatchError,
  InsufficientFundsError,
  type LedgerOperation,
} from '../../src/modules/wallet/ledger.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { transaction } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from './helpers.ts';

describe('ledger', () => {
  const ctx = useApp();
  let seq = 0;
  const op = (userId: number, amount: bigint, extra: Partial<LedgerOperation> = {}): LedgerOperation => ({
    userId,
    currency: 'BRL',
    type: 'adjustment',
    amount,
    idempotencyKey: `test:${process.pid}:${++seq}`,
    ...extra,
  });

  test('the first credit creates the balance; each movement writes one line with balance_after', async () => {
    const t = ctx();
    const { id } = await t.player();
    const first = await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 1000n, { type: 'topup' })));
    const second = await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, -250n)));
    assert.equal(first.balanceAfter, 1000n);
    assert.equal(second.balanceAfter, 750n);
    assert.equal(second.replayed, false);
    assert.equal(await balanceOf(t.db, id), 750n);
    assert.deepEqual(
      (await ledgerOf(t.db, id)).map((line) => [line.type, line.amount, line.balance_after]),
      [
        ['topup', 1000n, 1000n],
        ['adjustment', -250n, 750n],
      ],
    );
  });

  test('a replayed key returns the first outcome and moves nothing, even when the balance changed since', async () => {
    const t = ctx();
    const { id } = await t.player();
    const credit = op(id, 500n);
    const first = await transaction(t.db, (tx) => applyLedgerOperation(tx, credit));
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 300n)));
    const again = await transaction(t.db, (tx) => applyLedgerOperation(tx, credit));
    assert.deepEqual(again, { ...first, replayed: true });
    assert.equal(await balanceOf(t.db, id), 800n);
    // A debit replayed after the money is gone still answers its first outcome.
    const debit = op(id, -800n);
    await transaction(t.db, (tx) => applyLedgerOperation(tx, debit));
    const replayedDebit = await transaction(t.db, (tx) => applyLedgerOperation(tx, debit));
    assert.equal(replayedDebit.replayed, true);
    assert.equal(replayedDebit.balanceAfter, 0n);
    assert.equal((await ledgerOf(t.db, id)).length, 3);
  });

  test('a key reused for a different movement is refused', async () => {
    const t = ctx();
    const { id } = await t.player();
    const credit = op(id, 500n);
    await transaction(t.db, (tx) => applyLedgerOperation(tx, credit));
    await assert.rejects(
      transaction(t.db, (tx) => applyLedgerOperation(tx, { ...credit, amount: 501n })),
      IdempotencyMismatchError,
    );
    assert.equal(await balanceOf(t.db, id), 500n);
  });

  test('a debit beyond the balance is refused and changes nothing', async () => {
    const t = ctx();
    const { id } = await t.player();
    await assert.rejects(
      transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, -1n))),
      InsufficientFundsError,
    );
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 100n)));
    await assert.rejects(
      transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, -101n))),
      (error: unknown) => error instanceof InsufficientFundsError && error.available === 100n,
    );
    assert.equal(await balanceOf(t.db, id), 100n);
    assert.equal((await ledgerOf(t.db, id)).length, 1);
  });

  test('the database refuses to update or delete ledger lines, and refuses a negative balance', async () => {
    const t = ctx();
    const { id } = await t.player();
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 100n)));
    const cause = (pattern: RegExp) => (error: unknown) => pattern.test(String((error as { cause?: Error }).cause?.message));
    await assert.rejects(t.db.execute(sql`update ledger_entries set amount = 1 where user_id = ${id}`), cause(/append-only/));
    await assert.rejects(t.db.execute(sql`delete from ledger_entries where user_id = ${id}`), cause(/append-only/));
    await assert.rejects(t.db.execute(sql`truncate ledger_entries`), cause(/append-only/));
    await assert.rejects(t.db.execute(sql`update balances set amount = -1 where user_id = ${id}`), cause(/balances_amount_not_negative/));
    assert.equal((await ledgerOf(t.db, id))[0]!.amount, 100n);
  });

  test('20 concurrent movements with the same key apply once', async () => {
    const t = ctx();
    const { id } = await t.player();
    const credit = op(id, 700n);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => transaction(t.db, (tx) => applyLedgerOperation(tx, credit))));
    assert.equal(outcomes.filter((outcome) => !outcome.replayed).length, 1);
    assert.equal(new Set(outcomes.map((outcome) => outcome.entryId)).size, 1);
    assert.equal(await balanceOf(t.db, id), 700n);
    assert.equal((await ledgerOf(t.db, id)).length, 1);
  });

  test('one key sent concurrently for two users moves money for one of them; the other is refused', async () => {
    const t = ctx();
    const a = await t.player();
    const b = await t.player();
    const credit = op(a.id, 100n);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        transaction(t.db, (tx) => applyLedgerOperation(tx, i % 2 === 0 ? credit : { ...credit, userId: b.id })),
      ),
    );
    const winner = (await ledgerOf(t.db, a.id)).length === 1 ? a.id : b.id;
    assert.equal((await balanceOf(t.db, a.id)) + (await balanceOf(t.db, b.id)), 100n);
    assert.equal(await balanceOf(t.db, winner), 100n);
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 5);
    assert.ok(results.every((result) => result.status === 'fulfilled' || result.reason instanceof IdempotencyMismatchError));
  });

  test('a refused movement takes its whole transaction with it', async () => {
    const t = ctx();
    const a = await t.player();
    const b = await t.player();
    await assert.rejects(
      transaction(t.db, async (tx) => {
        await applyLedgerOperation(tx, op(a.id, 500n));
        await applyLedgerOperation(tx, op(b.id, -1n));
      }),
      InsufficientFundsError,
    );
    assert.equal(await balanceOf(t.db, a.id), 0n);
    assert.deepEqual(await ledgerOf(t.db, a.id), []);
  });

  test('20 concurrent first credits with different keys on a user without a balance all land', async () => {
    const t = ctx();
    const { id } = await t.player();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 100n)))));
    assert.ok(outcomes.every((outcome) => !outcome.replayed));
    assert.equal(await balanceOf(t.db, id), 2000n);
    assert.deepEqual(
      (await ledgerOf(t.db, id)).map((line) => line.balance_after),
      Array.from({ length: 20 }, (_, i) => BigInt((i + 1) * 100)),
    );
  });

  test('20 concurrent debits of 10.00 on 100.00 leave exactly 0.00: ten pass, ten are refused', async () => {
    const t = ctx();
    const { id } = await t.player();
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, 10000n)));
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => transaction(t.db, (tx) => applyLedgerOperation(tx, op(id, -1000n)))),
    );
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 10);
    assert.ok(results.every((result) => result.status === 'fulfilled' || result.reason instanceof InsufficientFundsError));
    assert.equal(await balanceOf(t.db, id), 0n);
  });

  test('the ledger verifies after all of it', async () => {
    const report = await verifyLedger(ctx().db);
    assert.deepEqual(report.problems, []);
    assert.ok(report.entries > 0);
  });
});
