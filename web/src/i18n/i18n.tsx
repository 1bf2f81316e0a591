import { createContext, useContext, type ReactNode } from 'react';
import { STRINGS, type Locale, type MessageKey } from './strings';

const LocaleContext = createContext<Locale>('en');

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

/** The person's language, for Intl formatting of numbers and dates in it (charts, their tables and summaries). */
export function useLocale(): Locale {
  return useContext(LocaleContext);
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** Components outside a provider (tests, the launcher) speak English. */
export function useT(): Translate {
  const table = STRINGS[useContext(LocaleContext)];
  return (key, values = {}) => table[key].replace(/\{(\w+)\}/g, (_match, name: string) => String(values[name] ?? `{${name}}`));
}

/**
 * The words for a code the server sends (`prefix.CODE`, e.g. `reason.INVALID_ICON`), or the code as
 * sent when this build has no words for it: a newer server's code is shown rather than hidden.
 */
export function codeLabel(t: Translate, prefix: string, code: string): string {
  const key = `${prefix}.${code}`;
  return key in STRINGS.en ? t(key as MessageKey) : code;
}
