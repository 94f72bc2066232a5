import type { DrawResult, GameType, SelectionSpec } from './game-type.ts';

/**
 * Three dice (sic bo). The outcome number v (0 … 215) reads as the dice
 * (⌊v / 36⌋ + 1, ⌊v / 6⌋ mod 6 + 1, v mod 6 + 1): each of the 216 ordered throws once.
 *
 * Default odds (decimal, stake included) and the house edge they give (docs/draws.md):
 * big 11–17 and small 4–10, both losing on any triple: 2.00 (105/216 → a house edge of 2.78 %);
 * odd and even, losing on any triple: 2.00 (2.78 %); a sum 4 … 17 (a triple counts): 61, 31, 18,
 * 13, 9, 7, 7, 7, 7, 9, 13, 18, 31, 61 (edges from 9.72 % for 7 and 14 to 18.98 % for 9 and 12);
 * any triple: 31 (13.89 %); a specific triple: 181 (16.20 %).
 */
const SUM_ODDS: Record<number, number> = {
  4: 61,
  5: 31,
  6: 18,
  7: 13,
  8: 9,
  9: 7,
  10: 7,
  11: 7,
  12: 7,
  13: 9,
  14: 13,
  15: 18,
  16: 31,
  17: 61,
};

const selections: SelectionSpec[] = [
  { code: 'big', name: 'Big (11–17, loses on a triple)', odds: 200 },
  { code: 'small', name: 'Small (4–10, loses on a triple)', odds: 200 },
  { code: 'odd', name: 'Odd sum (loses on a triple)', odds: 200 },
  { code: 'even', name: 'Even sum (loses on a triple)', odds: 200 },
  ...Object.entries(SUM_ODDS).map(([sum, odds]) => ({ code: `sum_${sum}`, name: `Sum ${sum}`, odds: odds * 100 })),
  { code: 'any_triple', name: 'Any triple', odds: 3100 },
  ...[1, 2, 3, 4, 5, 6].map((face) => ({ code: `triple_${face}`, name: `Triple ${face}s`, odds: 18100 })),
];

export const dice3: GameType = {
  code: 'dice3',
  name: 'Three dice',
  outcomes: 216,
  selections,
  result(value: number): DrawResult {
    const dice = [Math.floor(value / 36) + 1, (Math.floor(value / 6) % 6) + 1, (value % 6) + 1];
    return { value, dice, sum: dice[0]! + dice[1]! + dice[2]! };
  },
  winning(result: DrawResult): string[] {
    const [a, b, c] = result.dice as number[];
    const sum = result.sum as number;
    const triple = a === b && b === c;
    const wins: string[] = [];
    if (!triple) {
      wins.push(sum >= 11 ? 'big' : 'small');
      wins.push(sum % 2 === 1 ? 'odd' : 'even');
    }
    if (sum >= 4 && sum <= 17) wins.push(`sum_${sum}`);
    if (triple) wins.push('any_triple', `triple_${a}`);
    return selections.map((selection) => selection.code).filter((code) => wins.includes(code));
  },
};
