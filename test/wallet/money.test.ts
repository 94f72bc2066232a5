import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatUnits, moneyProblem, percentOf, rateProblem, toUnits } from '../../src/platform/money.ts';

describe('money', () => {
  test('numbers and numeric strings with up to 2 decimals become exact cents', () => {
    assert.deepEqual(moneyProblem('amount', 100.5), { cents: 10050n });
    assert.deepEqual(moneyProblem('amount', '100.05'), { cents: 10005n });
    assert.deepEqual(moneyProblem('amount', 20), { cents: 2000n });
    assert.deepEqual(moneyProblem('amount', '0.1'), { cents: 10n });
    assert.deepEqual(moneyProblem('amount', 0.29), { cents: 29n });
  });

  test('more than 2 decimals, negatives, NaN, Infinity, non-numbers and absurd values are refused', () => {
    assert.equal(moneyProblem('amount', 1.005), 'The amount field must have 0-2 decimal places.');
    assert.equal(moneyProblem('amount', 0.1 + 0.2), 'The amount field must have 0-2 decimal places.');
    assert.equal(moneyProblem('amount', -5), 'The amount field must be at least 0.');
    assert.equal(moneyProblem('amount', '-5', { min: 1n }), 'The amount field must be at least 0.01.');
    assert.equal(moneyProblem('amount', 'NaN'), 'The amount field must be a number.');
    assert.equal(moneyProblem('amount', 'Infinity'), 'The amount field must be a number.');
    assert.equal(moneyProblem('amount', '1e3'), 'The amount field must be a number.');
    assert.equal(moneyProblem('amount', true), 'The amount field must be a number.');
    assert.equal(moneyProblem('amount', 1e21), 'The amount field must be a number.');
    assert.equal(moneyProblem('amount', '1000000000000'), 'The amount field must not be greater than 999999999999.99.');
    assert.equal(moneyProblem('amount', 0, { min: 1n }), 'The amount field must be at least 0.01.');
  });

  test('signed amounts keep their sign and refuse zero', () => {
    assert.deepEqual(moneyProblem('amount', -12.34, { signed: true }), { cents: -1234n });
    assert.equal(moneyProblem('amount', 0, { signed: true }), 'The amount field must not be zero.');
  });

  test('rates are percentages 0 to 100 with 2 decimals, kept as basis points', () => {
    assert.deepEqual(rateProblem('rate', 12.5), { bp: 1250n });
    assert.deepEqual(rateProblem('rate', '100'), { bp: 10000n });
    assert.equal(rateProblem('rate', 100.01), 'The rate field must not be greater than 100.');
    assert.equal(rateProblem('rate', -1), 'The rate field must be at least 0.');
    assert.equal(rateProblem('rate', 1.234), 'The rate field must have 0-2 decimal places.');
  });

  test('percent of an amount rounds half up to the cent', () => {
    assert.equal(percentOf(10050n, 250n), 251n); // 2.5125 → 2.51
    assert.equal(percentOf(10n, 5000n), 5n); // 0.05 exactly
    assert.equal(percentOf(1n, 5000n), 1n); // 0.005 → 0.01
    assert.equal(percentOf(1n, 4999n), 0n); // 0.004999 → 0.00
    assert.equal(percentOf(12345n, 0n), 0n);
    assert.equal(percentOf(99_999_999_999_999n, 10000n), 99_999_999_999_999n);
  });

  test('cents print as units with at most 2 decimals', () => {
    assert.equal(toUnits(10050n), 100.5);
    assert.equal(toUnits(2000n), 20);
    assert.equal(toUnits(1n), 0.01);
    assert.equal(toUnits(99_999_999_999_999n), 999999999999.99);
    assert.equal(formatUnits(-1205n), '-12.05');
  });
});
