import type { Locale } from './locales.ts';

/**
 * Money as the API gives it (units: "1234.56", 1234.5) or as integer cents (bigint), written in
 * the locale: `R$ 1.234,56` in pt-BR, `R$1,234.56` in en. The amount never passes through a float:
 * Intl formats the decimal string exactly.
 */
export function formatMoney(value: string | number | bigint | null | undefined, locale: Locale, currency = 'BRL'): string {
  if (value === null || value === undefined || value === '') return '';
  const decimal = typeof value === 'bigint' ? centsToDecimal(value) : String(value);
  if (!/^-?\d+(\.\d+)?$/.test(decimal)) return String(value);
  const format = new Intl.NumberFormat(locale === 'pt-BR' ? 'pt-BR' : 'en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
  // Intl separates "R$" with a no-break space in pt-BR; the contract reads it as a plain space.
  return format.format(decimal as unknown as number).replace(/\u00a0/g, ' ');
}

export function centsToDecimal(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/** Units as typed by a person ("12,50" or "12.50") to the decimal string the API takes; undefined when not a number. */
export function parseAmount(text: string): string | undefined {
  const cleaned = text.trim().replace(/\s/g, '').replace(/^R\$/, '');
  const normal = cleaned.includes(',') ? cleaned.replace(/\./g, '').replace(',', '.') : cleaned;
  return /^-?\d+(\.\d{1,2})?$/.test(normal) ? normal : undefined;
}
