import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { DrawResult, GameType } from './types/game-type.ts';

/**
 * Provably fair draws (docs/draws.md, "Fairness"). A draw's server seed is 32 random bytes written
 * as 64 lower-case hex characters; that text is what is hashed and what keys the HMAC, so anyone
 * can check a draw with `sha256sum` and `openssl` alone:
 *
 *   seed hash = SHA-256(seed text), published when the draw opens;
 *   block 0   = HMAC-SHA256(key = seed text, message = period), e.g. "20261125-0001";
 *   block k   = HMAC-SHA256(seed text, period + ":" + k) for k = 1, 2, … (needed only after 8 rejections);
 *   the blocks are read as big-endian unsigned 32-bit words, in order; the first word below
 *   2^32 − (2^32 mod n) gives the outcome number word mod n, where n is the type's outcome count.
 *
 * Rejecting the few words at the top of the range keeps every outcome exactly equally likely
 * (a plain `mod n` would favour the low outcomes whenever n does not divide 2^32).
 */

const WORD_RANGE = 2 ** 32;

export function newServerSeed(): string {
  return randomBytes(32).toString('hex');
}

export function seedHash(seed: string): string {
  return createHash('sha256').update(seed, 'utf8').digest('hex');
}

export function isServerSeed(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}

function block(seed: string, period: string, index: number): Buffer {
  return createHmac('sha256', seed)
    .update(index === 0 ? period : `${period}:${index}`, 'utf8')
    .digest();
}

export interface OutcomeDerivation {
  /** Block 0 in hex: what `openssl dgst -sha256 -hmac <seed>` prints for the period. */
  hmac: string;
  /** Which 32-bit word was taken (0 for the first; 8 would be the first word of block 1). */
  word: number;
  value: number;
}

/** The outcome number of a draw: uniform over 0 … outcomes − 1, as described above. */
export function outcomeNumber(seed: string, period: string, outcomes: number): OutcomeDerivation {
  if (!Number.isInteger(outcomes) || outcomes < 2 || outcomes > WORD_RANGE) throw new RangeError(`Bad outcome count ${outcomes}.`);
  const limit = WORD_RANGE - (WORD_RANGE % outcomes);
  const first = block(seed, period, 0);
  for (let index = 0, bytes = first; ; bytes = block(seed, period, ++index)) {
    for (let offset = 0; offset < bytes.length; offset += 4) {
      const word = bytes.readUInt32BE(offset);
      if (word < limit) return { hmac: first.toString('hex'), word: index * 8 + offset / 4, value: word % outcomes };
    }
  }
}

/** The result and the winning selections of a draw of `type` with this seed and period. */
export function drawOutcome(type: GameType, seed: string, period: string): { result: DrawResult; winning: string[]; hmac: string } {
  const derivation = outcomeNumber(seed, period, type.outcomes);
  const result = type.result(derivation.value);
  return { result, winning: type.winning(result), hmac: derivation.hmac };
}
