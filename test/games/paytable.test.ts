import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { multiplier, REELS, RTP, spin, STOPS, STRIP, SYMBOLS } from '../../src/modules/games/demo-provider/paytable.ts';

/** Every line the reels can stop on, each as likely as any other (one stop per reel). */
function* everyLine() {
  for (const a of STRIP) for (const b of STRIP) for (const c of STRIP) yield [a, b, c];
}

describe('demo slot paytable', () => {
  test('the strip holds each symbol as often as published, 20 stops per reel', () => {
    assert.equal(STRIP.length, 20);
    for (const symbol of SYMBOLS) assert.equal(STRIP.filter((stop) => stop === symbol).length, STOPS[symbol], symbol);
  });

  test('the exact return over all 8,000 stop combinations is 96.00 %, as docs/games.md states', () => {
    let paid = 0n;
    let lines = 0n;
    let hits = 0n;
    for (const line of everyLine()) {
      const pays = multiplier(line);
      paid += BigInt(pays);
      lines += 1n;
      if (pays > 0) hits += 1n;
    }
    assert.equal(lines, BigInt(STRIP.length) ** BigInt(REELS));
    assert.deepEqual({ paid, staked: lines }, RTP);
    assert.equal(hits, 2_564n);
    const docs = readFileSync(new URL('../../docs/games.md', import.meta.url), 'utf8');
    assert.match(docs, /return to player is \*\*96\.00 %\*\*/);
    assert.match(docs, /2,564 of the 8,000/);
  });

  test('300,000 spins drawn with crypto.randomInt return 96 % of the stakes within five standard errors', () => {
    const pays = [...everyLine()].map(multiplier);
    const mean = Number(RTP.paid) / Number(RTP.staked);
    const variance = pays.reduce((sum, m) => sum + (m - mean) ** 2, 0) / pays.length;
    const spins = 300_000;
    let total = 0;
    for (let i = 0; i < spins; i++) total += multiplier(spin());
    const observed = total / spins;
    const tolerance = 5 * Math.sqrt(variance / spins);
    assert.ok(Math.abs(observed - mean) < tolerance, `observed ${observed}, expected ${mean} ± ${tolerance}`);
  });

  test('a spin stops each reel where the draw says: every stop can come up', () => {
    const seen = new Set<number>();
    let next = 0;
    for (let i = 0; i < STRIP.length; i++) {
      const line = spin(() => next);
      assert.deepEqual(line, [STRIP[next], STRIP[next], STRIP[next]]);
      seen.add(next);
      next += 1;
    }
    assert.equal(seen.size, STRIP.length);
  });
});
