import type { DrawSettings } from './settings.ts';

/**
 * When a game's next draw happens and what it is called (docs/draws.md, "Scheduler"). Draws fall
 * on the marks of the game's interval counted from midnight UTC (the interval divides a day, so
 * the marks are the same every day); the next draw is the first mark that still leaves betting
 * open for at least a second after `now` and comes after the previous draw. Its period is the UTC day of the draw and
 * its number that day for the game: `20261125-0001` is the first draw of 25 November. A gap while
 * no scheduler ran is not filled in: numbers count the draws that happened.
 */
export interface DrawSlot {
  period: string;
  opensAt: Date;
  closesAt: Date;
  drawAt: Date;
}

/** A draw opened later than this before its close is skipped for the next mark: too short to bet. */
const MIN_OPEN_MS = 1000;

function day(at: Date): string {
  return at.toISOString().slice(0, 10).replaceAll('-', '');
}

export function nextDrawSlot(
  now: Date,
  settings: Pick<DrawSettings, 'intervalS' | 'closeBeforeS'>,
  previous?: { period: string; drawAt: Date },
): DrawSlot {
  const interval = settings.intervalS * 1000;
  const close = settings.closeBeforeS * 1000;
  const after = Math.max(now.getTime() + close + MIN_OPEN_MS - 1, previous?.drawAt.getTime() ?? -Infinity);
  const drawAt = new Date((Math.floor(after / interval) + 1) * interval);
  const today = day(drawAt);
  const [previousDay, previousNumber] = previous?.period.split('-') ?? [];
  const number = previousDay === today ? Number(previousNumber) + 1 : 1;
  return {
    period: `${today}-${String(number).padStart(4, '0')}`,
    opensAt: now,
    closesAt: new Date(drawAt.getTime() - close),
    drawAt,
  };
}
