import { useLocaleState, useTranslate } from 'react-admin';

/** The language control: named "Language" (Idioma), options "English" and "Português"; the choice is remembered (i18n.ts). */
export function LanguageSelect({ color }: { color?: string }) {
  const translate = useTranslate();
  const [locale, setLocale] = useLocaleState();
  return (
    <label style={{ display: 'inline-flex', gap: 6, alignItems: 'center', color: color ?? 'inherit', fontSize: 14 }}>
      <span>{translate('app.field.language')}</span>
      <select value={locale} onChange={(event) => setLocale(event.target.value)} style={{ padding: '4px 6px', fontSize: 14 }}>
        <option value="en" lang="en">
          English
        </option>
        <option value="pt-BR" lang="pt-BR">
          Português
        </option>
      </select>
    </label>
  );
}
