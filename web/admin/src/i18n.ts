import type { TranslationMessages } from 'react-admin';
import englishMessages from 'ra-language-english';
import polyglotI18nProvider from 'ra-i18n-polyglot';
import { initialLocale, rememberLocale, type Locale } from '../../shared/locales.ts';
import { en, ptBR, raPtBR } from './messages.ts';

type Tree = { [key: string]: string | Tree };

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = out[key];
    out[key] = typeof value === 'object' && typeof below === 'object' ? merge(below, value) : value;
  }
  return out;
}

const english = merge(englishMessages as unknown as Tree, { app: en });
const catalogues: Record<Locale, Tree> = {
  en: english,
  'pt-BR': merge(merge(english, raPtBR), { app: ptBR }),
};

export const i18nProvider = polyglotI18nProvider(
  (locale) => (catalogues[locale as Locale] ?? english) as unknown as TranslationMessages,
  initialLocale(),
  [
    { locale: 'en', name: 'English' },
    { locale: 'pt-BR', name: 'Português' },
  ],
);

const changeLocale = i18nProvider.changeLocale.bind(i18nProvider);
i18nProvider.changeLocale = async (locale: string) => {
  rememberLocale(locale as Locale);
  return changeLocale(locale);
};
document.documentElement.lang = initialLocale();
