import type { Locale } from './locales.ts';

/** Every time a person reads is in São Paulo's time (contract section 16), whatever the browser's zone. */
export const TIME_ZONE = 'America/Sao_Paulo';

export function formatDateTime(value: string | null | undefined, locale: Locale): string {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return new Intl.DateTimeFormat(locale, { timeZone: TIME_ZONE, dateStyle: 'short', timeStyle: 'medium' }).format(date);
}

/** The São Paulo calendar day of an instant, as YYYY-MM-DD. */
export function saoPauloDay(date: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

/** A YYYY-MM-DD day moved by whole days (calendar arithmetic on the date alone, no time zone). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T12:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
