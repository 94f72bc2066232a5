import { plain } from '../../shared/text.ts';
import { useLocaleState } from 'react-admin';
import { formatDateTime } from '../../shared/dates.ts';
import { formatMoney } from '../../shared/money.ts';
import type { Locale } from '../../shared/locales.ts';
import { ApiError } from '../../shared/api.ts';

export function useLocale(): Locale {
  const [locale] = useLocaleState();
  return locale === 'pt-BR' ? 'pt-BR' : 'en';
}

export function Money({ value }: { value: unknown }) {
  const locale = useLocale();
  return <span>{formatMoney(value as string | number | null, locale)}</span>;
}

export function DateTime({ value }: { value: unknown }) {
  const locale = useLocale();
  return <span>{formatDateTime(value as string | null, locale)}</span>;
}

/** The API's own message for a refusal (403, 409, 422), shown as it is. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const first = Object.values(error.errors)[0]?.[0];
    return first ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

const MONEY_FIELDS =
  /(^|_)(amount|balance|balance_after|deposits|stakes|wins|refunds|ggr|stake|win|total|min_amount|max_amount|payout|net_deposits|paid_withdrawals)$/;
const DATE_FIELDS = /(_at|_until)$/;

/** A value of any record field as a person reads it: money and times in the locale, objects as JSON. */
export function Value({ field, value }: { field: string; value: unknown }) {
  if (value === null || value === undefined) return <span />;
  if (MONEY_FIELDS.test(field) && (typeof value === 'number' || typeof value === 'string')) return <Money value={value} />;
  if (DATE_FIELDS.test(field) && typeof value === 'string') return <DateTime value={value} />;
  if (typeof value === 'object') return <code style={{ whiteSpace: 'pre-wrap', fontSize: 12 }}>{JSON.stringify(value)}</code>;
  return <span>{plain(value)}</span>;
}
