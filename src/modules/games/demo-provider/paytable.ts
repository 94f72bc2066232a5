import { randomInt } from 'node:crypto';

/**
 * The demo slot (docs/games.md, "Demo game"): three reels, one payline, the same 20-stop strip
 * on each reel. A spin stops each reel at a stop drawn with `crypto.randomInt`; the symbols on
 * the line decide the pay, an integer multiple of the stake, so a win is exact in cents.
 */
export const SYMBOLS = ['seven', 'bar', 'bell', 'melon', 'lemon', 'cherry'] as const;
export type SlotSymbol = (typeof SYMBOLS)[number];

/** How often each symbol stands on the strip (20 stops). */
export const STOPS: Record<SlotSymbol, number> = { seven: 1, bar: 2, bell: 3, melon: 4, lemon: 4, cherry: 6 };

/** The strip in order (what the page scrolls through): each symbol as often as STOPS says. */
export const STRIP: readonly SlotSymbol[] = [
  'cherry',
  'lemon',
  'bell',
  'cherry',
  'melon',
  'bar',
  'lemon',
  'cherry',
  'seven',
  'melon',
  'bell',
  'cherry',
  'lemon',
  'melon',
  'bar',
  'cherry',
  'bell',
  'lemon',
  'melon',
  'cherry',
];

export const REELS = 3;

/** Three of a kind on the line pays this many stakes. */
export const THREE_OF_A_KIND: Record<SlotSymbol, number> = { seven: 300, bar: 40, bell: 20, melon: 15, lemon: 10, cherry: 8 };
/** Cherries on the first two reels (the third not a cherry). */
export const TWO_CHERRIES = 3;
/** A cherry on the first reel only. */
export const ONE_CHERRY = 1;

/** The return to player, exactly: 7,680 stakes paid back per 8,000 combinations staked (tested). */
export const RTP = { paid: 7680n, staked: 8000n } as const;

/** How many stakes the line pays (0 when it loses). */
export function multiplier(line: readonly SlotSymbol[]): number {
  const [first, second, third] = line;
  if (first === second && second === third) return THREE_OF_A_KIND[first!];
  if (first === 'cherry' && second === 'cherry') return TWO_CHERRIES;
  if (first === 'cherry') return ONE_CHERRY;
  return 0;
}

/** One spin: a stop per reel, each drawn uniformly (`pick` is crypto.randomInt unless a test says otherwise). */
export function spin(pick: (stops: number) => number = randomInt): SlotSymbol[] {
  return Array.from({ length: REELS }, () => STRIP[pick(STRIP.length)]!);
}
