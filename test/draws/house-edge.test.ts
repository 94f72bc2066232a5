import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { drawOutcome } from '../../src/modules/draws/fairness.ts';
import { GAME_TYPES } from '../../src/modules/draws/types/registry.ts';
import { DOCUMENTED } from './helpers.ts';

const DRAWS = 100_000;
/** Tolerance in standard errors: a fair run strays this far about once in 150,000 checks. */
const SIGMAS = 4.5;

/**
 * 100,000 draws of each type through the real seed → outcome → winning path (no database), with a
 * unit bet on every selection each draw. Seeds are fixed (SHA-256 of a counter), so the run is
 * the same every time; the bounds are statistical (SIGMAS standard errors), so a wrong winning
 * rule, wrong odds or a biased mapping shows, while chance does not.
 */
describe('house edge over 100,000 simulated draws', () => {
  for (const type of GAME_TYPES.values()) {
    test(`${type.code}: every selection’s return, and the type’s, are within ${SIGMAS} standard errors of the theory`, () => {
      const returned = new Map(type.selections.map((selection) => [selection.code, 0]));
      let sum = 0;
      let sumOfSquares = 0;
      for (let i = 0; i < DRAWS; i++) {
        const seed = createHash('sha256').update(`house-edge:${type.code}:${i}`).digest('hex');
        const { winning } = drawOutcome(type, seed, `20261125-${String((i % 9999) + 1).padStart(4, '0')}`);
        let draw = 0;
        for (const selection of type.selections) {
          if (!winning.includes(selection.code)) continue;
          returned.set(selection.code, returned.get(selection.code)! + selection.odds / 100);
          draw += selection.odds / 100;
        }
        draw /= type.selections.length;
        sum += draw;
        sumOfSquares += draw * draw;
      }

      // The theory is the documented table (docs/draws.md), not the code under test.
      const documented = DOCUMENTED[type.code]!;
      assert.deepEqual(
        documented.map(([code]) => code),
        type.selections.map((selection) => selection.code),
      );
      let theoreticalTotal = 0;
      for (const [code, wins, odds] of documented) {
        const p = wins / type.outcomes;
        const theoretical = odds * p;
        theoreticalTotal += theoretical;
        const standardError = odds * Math.sqrt((p * (1 - p)) / DRAWS);
        const simulated = returned.get(code)! / DRAWS;
        assert.ok(
          Math.abs(simulated - theoretical) <= SIGMAS * standardError,
          `${code}: return ${simulated.toFixed(4)}, theory ${theoretical.toFixed(4)} ± ${(SIGMAS * standardError).toFixed(4)}`,
        );
      }
      // The type's edge for a player who spreads bets evenly over every selection.
      const theoretical = theoreticalTotal / type.selections.length;
      const mean = sum / DRAWS;
      const standardError = Math.sqrt((sumOfSquares / DRAWS - mean * mean) / DRAWS);
      assert.ok(
        Math.abs(mean - theoretical) <= SIGMAS * standardError,
        `${type.code}: house edge ${((1 - mean) * 100).toFixed(2)} %, theory ${((1 - theoretical) * 100).toFixed(2)} %`,
      );
      assert.ok(theoretical < 1, 'the house keeps an edge');
    });
  }
});
