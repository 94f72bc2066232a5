/** The languages the service answers in (docs/i18n.md); `en` is the source's own. */
export const LOCALES = ['en', 'pt_BR'] as const;
export type Locale = (typeof LOCALES)[number];

/** The language tag of `Content-Language` for a locale (RFC 9110 uses BCP 47: `pt-BR`). */
export const LANGUAGE_TAGS: Record<Locale, string> = { en: 'en', pt_BR: 'pt-BR' };

/**
 * The locale an `Accept-Language` header picks under APP_LOCALE_NEGOTIATE=on (docs/api.md
 * section 17): the first language range the client accepts (q > 0) that is `pt` or a `pt-…` gives
 * `pt_BR`, one that is `en` or `en-…` gives `en`; `*`, any other language or no header gives
 * `fallback` (APP_LOCALE). Ranges are taken by their q-value, highest first, ties in the order sent.
 * A cheap scan: one split of a short header, no allocation beyond it, once per request.
 */
export function negotiateLocale(header: string | undefined, fallback: Locale): Locale {
  if (header === undefined || header === '') return fallback;
  let best: Locale = fallback;
  let bestQ = 0;
  for (const part of header.split(',')) {
    const [rangeText = '', ...parameters] = part.split(';');
    const range = rangeText.trim().toLowerCase();
    let q = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=');
      if (name?.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (!(q > 0) || q <= bestQ) continue;
    const locale = range === 'pt' || range.startsWith('pt-') ? 'pt_BR' : range === 'en' || range.startsWith('en-') ? 'en' : undefined;
    if (locale === undefined) continue;
    best = locale;
    bestQ = q;
  }
  return best;
}
