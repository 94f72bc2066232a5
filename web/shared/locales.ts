export const LOCALES = ['en', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];

const STORAGE_KEY = 'croupier.locale';

function isLocale(value: unknown): value is Locale {
  return (LOCALES as readonly unknown[]).includes(value);
}

/** The language remembered from a switch, else the server's default (ADMIN_LOCALE, a meta tag in index.html), else English. */
export function initialLocale(): Locale {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (isLocale(stored)) return stored;
  const served = document.querySelector('meta[name="admin-locale"]')?.getAttribute('content');
  return isLocale(served) ? served : 'en';
}

export function rememberLocale(locale: Locale): void {
  localStorage.setItem(STORAGE_KEY, locale);
  document.documentElement.lang = locale;
}
