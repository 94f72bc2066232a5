import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyLedgerOperations, PartialReplayError } from '../../src/modules/wallet/ledger-batch.ts';
import { applyLedgerOperation, InsufficientFundsError, type LedgerOperation } from '../../src/modules/wallet/ledger.ts';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { transaction } from '../../src/platform/db/client.ts';
import { useApp } from '../helpers/app.ts';
import { balanceOf, ledgerOf } from './helpers.ts';

describe('ledger batch (several operations in one statement)', () => {
  const ctx = useApp();
  let seq = 0;
  const op = (userId: number, amount: bigint): LedgerOperation => ({
    userId,
    currency: 'BRL',
    type: 'adjustment',
    amount,
    idempotencyKey: `batch:${process.pid}:${++seq}`,
  });

  test('lines on one balance get running balance_after values in order; other balances move too', async () => {
    const t = ctx();
    const a = await t.player();
    const b = await t.player();
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(a.id, 1000n)));
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(b.id, 50n)));
    const outcomes = await transaction(t.db, (tx) =>
      applyLedgerOperations(tx, [op(a.id, 200n), op(a.id, -1100n), op(b.id, 5n), op(a.id, 30n)]),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.balanceAfter),
      [1200n, 100n, 55n, 130n],
    );
    assert.deepEqual(
      (await ledgerOf(t.db, a.id)).map((line) => [line.amount, line.balance_after]),
      [
        [1000n, 1000n],
        [200n, 1200n],
        [-1100n, 100n],
        [30n, 130n],
      ],
    );
    assert.equal(await balanceOf(t.db, b.id), 55n);
  });

  test('a missing balance falls back to one-by-one and creates it', async () => {
    const t = ctx();
    const a = await t.player();
    const b = await t.player();
    const outcomes = await transaction(t.db, (tx) => applyLedgerOperations(tx, [op(a.id, 10n), op(b.id, 20n), op(a.id, 5n)]));
    assert.deepEqual(
      outcomes.map((outcome) => outcome.balanceAfter),
      [10n, 20n, 15n],
    );
    assert.equal(await balanceOf(t.db, a.id), 15n);
    assert.equal(await balanceOf(t.db, b.id), 20n);
  });

  test('a running total below zero refuses the whole batch and moves nothing', async () => {
    const t = ctx();
    const a = await t.player();
    const b = await t.player();
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(a.id, 100n)));
    await transaction(t.db, (tx) => applyLedgerOperation(tx, op(b.id, 100n)));
    await assert.rejects(
      transaction(t.db, (tx) => applyLedgerOperations(tx, [op(b.id, 7n), op(a.id, -150n), op(a.id, 100n)])),
      InsufficientFundsError,
    );
    assert.equal(await balanceOf(t.db, a.id), 100n);
    assert.equal(await balanceOf(t.db, b.id), 100n);
  });

  test('a fully replayed batch answers the first outcomes; a partly replayed one aborts', async () => {
    const t = ctx();
    const a = await t.player();
    const ops = [op(a.id, 10n), op(a.id, 20n)];
    const first = await transaction(t.db, (tx) => applyLedgerOperations(tx, ops));
    const again = await transaction(t.db, (tx) => applyLedgerOperations(tx, ops));
    assert.deepEqual(
      again,
      first.map((outcome) => ({ ...outcome, replayed: true })),
    );
    await assert.rejects(
      transaction(t.db, (tx) => applyLedgerOperations(tx, [ops[0]!, op(a.id, 1n)])),
      PartialReplayError,
    );
    assert.equal(await balanceOf(t.db, a.id), 30n);
    assert.deepEqual((await verifyLedger(t.db)).problems, []);
  });
});
