import type { DrawResult, GameType } from './game-type.ts';

/**
 * A wheel of 15 slots: 0 is white, 1–7 red, 8–14 black. The outcome number is the slot.
 * Red and black pay 2.00 (7/15 → a house edge of 6.67 %), white 14.00 (1/15 → 6.67 %).
 */
function color(slot: number): 'white' | 'red' | 'black' {
  if (slot === 0) return 'white';
  return slot <= 7 ? 'red' : 'black';
}

export const double: GameType = {
  code: 'double',
  name: 'Double',
  outcomes: 15,
  selections: [
    { code: 'red', name: 'Red (1–7)', odds: 200 },
    { code: 'black', name: 'Black (8–14)', odds: 200 },
    { code: 'white', name: 'White (0)', odds: 1400 },
  ],
  result(value: number): DrawResult {
    return { value, slot: value, color: color(value) };
  },
  winning(result: DrawResult): string[] {
    return [result.color as string];
  },
};
