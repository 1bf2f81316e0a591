import { createContext, useContext, type ReactNode } from 'react';
import { localeFormat, type LocaleFormat } from './dates';
import { STRINGS, type Locale, type MessageKey } from './strings';

const LocaleContext = createContext<Locale>('en');

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

/** The person's language, for Intl formatting of numbers and dates in it (charts, their tables and summaries). */
export function useLocale(): Locale {
  return useContext(LocaleContext);
}

/** Dates, times, numbers and money in the person's language (not the browser's). */
export function useFormat(): LocaleFormat {
  return localeFormat(useContext(LocaleContext));
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/**
 * Components outside a provider (tests, the launcher) speak English. A number put into a message is
 * written the reader's way ("1.234 điểm"); ids, names and dates arrive as strings and stay as they are.
 */
export function useT(): Translate {
  const locale = useContext(LocaleContext);
  const table = STRINGS[locale];
  const { number } = localeFormat(locale);
  return (key, values = {}) =>
    table[key].replace(/\{(\w+)\}/g, (_match, name: string) => {
      const value = values[name];
      return value === undefined ? `{${name}}` : typeof value === 'number' ? number(value) : value;
    });
}

/**
 * The words for a code the server sends (`prefix.CODE`, e.g. `reason.INVALID_ICON`, `category.games`), or
 * `fallback` (the code as sent, or the server's own label) when this build has no words for it: a newer
 * server's code is shown rather than hidden.
 */
export function codeLabel(t: Translate, prefix: string, code: string, fallback: string = code): string {
  const key = `${prefix}.${code}`;
  return key in STRINGS.en ? t(key as MessageKey) : fallback;
}
