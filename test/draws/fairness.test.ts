import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { drawOutcome, newServerSeed, outcomeNumber, seedHash } from '../../src/modules/draws/fairness.ts';
import { dice3 } from '../../src/modules/draws/types/dice3.ts';
import { double } from '../../src/modules/draws/types/double.ts';

// A fixed vector, computed with the shell one-liner of docs/draws.md ("Checking a draw yourself"):
//   SEED=0870e18d7494daca8ec0fab4991f2f00622c0b1c284defe772dae23b048fa24f
//   printf %s "$SEED" | sha256sum                                   → 7afc75b0…3d95
//   printf %s 20261125-0001 | openssl dgst -sha256 -hmac "$SEED"    → cf21ed7e…e9d1
//   first word 0xcf21ed7e = 3475107198, below both limits: dice3 3475107198 mod 216 = 54, double mod 15 = 3.
const SEED = '0870e18d7494daca8ec0fab4991f2f00622c0b1c284defe772dae23b048fa24f';
const PERIOD = '20261125-0001';
const HASH = '7afc75b0017923d566a0ce6cb077bceb23c5d9d6d22d8d041ba69ef45bb93d95';
const HMAC = 'cf21ed7e7b282c78dd99311caa48b23457e4b5821f0cb50be4d3ac6743e7e9d1';

/** The mapping of docs/draws.md written out again, independently of fairness.ts. */
function independentOutcome(seed: string, period: string, n: number): { value: number; word: number } {
  const limit = 2 ** 32 - (2 ** 32 % n);
  for (let block = 0; block < 64; block++) {
    const bytes = createHmac('sha256', seed)
      .update(block === 0 ? period : `${period}:${block}`)
      .digest();
    for (let i = 0; i < 8; i++) {
      const word = bytes.readUInt32BE(i * 4);
      if (word < limit) return { value: word % n, word: block * 8 + i };
    }
  }
  throw new Error('no word accepted');
}

describe('provably fair outcomes', () => {
  test('the documented vector: seed hash, HMAC, and the result of each type', () => {
    assert.equal(seedHash(SEED), HASH);
    assert.equal(createHash('sha256').update(SEED).digest('hex'), HASH);
    const dice = drawOutcome(dice3, SEED, PERIOD);
    assert.equal(dice.hmac, HMAC);
    assert.deepEqual(dice.result, { value: 54, dice: [2, 4, 1], sum: 7 });
    assert.deepEqual(dice.winning, ['small', 'odd', 'sum_7']);
    const wheel = drawOutcome(double, SEED, PERIOD);
    assert.deepEqual(wheel.result, { value: 3, slot: 3, color: 'red' });
    assert.deepEqual(wheel.winning, ['red']);
  });

  test('a word in the top, uneven slice of the range is rejected and the next word is read instead', () => {
    // With n = 2^31 + 1 nearly half of all words fall in the rejected slice, so a period whose
    // first word (and one whose whole first block) is rejected is easy to find; a plain `mod n`
    // would answer from the first word.
    const n = 2 ** 31 + 1;
    let firstRejected = 0;
    let blockRejected = 0;
    for (let i = 0; i < 2000 && (firstRejected < 5 || blockRejected < 1); i++) {
      const period = `20261125-${String(i).padStart(4, '0')}`;
      const expected = independentOutcome(SEED, period, n);
      const got = outcomeNumber(SEED, period, n);
      assert.deepEqual({ value: got.value, word: got.word }, expected, period);
      if (expected.word > 0) firstRejected += 1;
      if (expected.word >= 8) blockRejected += 1;
    }
    assert.ok(firstRejected >= 5, 'periods whose first word is rejected were checked');
    assert.ok(blockRejected >= 1, 'a period whose whole first block is rejected was checked');
  });

  test('every outcome of both types agrees with the independent mapping for random seeds', () => {
    for (let i = 0; i < 300; i++) {
      const seed = newServerSeed();
      assert.match(seed, /^[0-9a-f]{64}$/);
      const period = `20261125-${String(i + 1).padStart(4, '0')}`;
      for (const type of [dice3, double]) {
        assert.equal(drawOutcome(type, seed, period).result.value, independentOutcome(seed, period, type.outcomes).value);
      }
    }
  });

  test('the dice read from the outcome number cover every ordered throw exactly once', () => {
    const throws = new Set<string>();
    for (let value = 0; value < 216; value++) {
      const dice = dice3.result(value).dice as number[];
      assert.ok(dice.every((die) => die >= 1 && die <= 6));
      throws.add(dice.join(','));
    }
    assert.equal(throws.size, 216);
  });
});
