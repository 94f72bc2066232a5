/**
 * Brazil's regulator counts days in Brasília time (docs/regulation.md): the calendar of
 * America/Sao_Paulo, used for the age of majority and the daily report's day.
 */
export const SAO_PAULO = 'America/Sao_Paulo';

const DAY = new Intl.DateTimeFormat('en-CA', { timeZone: SAO_PAULO, year: 'numeric', month: '2-digit', day: '2-digit' });
const OFFSET = new Intl.DateTimeFormat('en-US', { timeZone: SAO_PAULO, timeZoneName: 'longOffset' });

/** The São Paulo calendar date (YYYY-MM-DD) at `instant`. */
export function saoPauloDate(instant: Date): string {
  return DAY.format(instant);
}

/** Whether `text` is a real calendar date written YYYY-MM-DD (no 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** Minutes São Paulo is ahead of UTC at `instant` (−180 since 2019, when daylight saving ended). */
function offsetMinutes(instant: Date): number {
  const name = OFFSET.formatToParts(instant).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (match === null) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

/** The instants a São Paulo calendar day (YYYY-MM-DD) runs over: [from, to). */
export function saoPauloDay(date: string): { from: Date; to: Date } {
  // The offset of the day's noon: midnight itself may fall in a change of offset (before 2019).
  const start = (utcMidnight: number) => new Date(utcMidnight - offsetMinutes(new Date(utcMidnight + 15 * 3600_000)) * 60_000);
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  return { from: start(utcMidnight), to: start(utcMidnight + 86_400_000) };
}

/**
 * Whether someone born on `birthDate` (YYYY-MM-DD) is `years` or older on `today` (YYYY-MM-DD):
 * the birthday itself counts, and 29 February is reached on 1 March in other years.
 */
export function isAtLeast(birthDate: string, years: number, today: string): boolean {
  const anniversary = `${String(Number(birthDate.slice(0, 4)) + years).padStart(4, '0')}${birthDate.slice(4)}`;
  return anniversary <= today;
}
