import { createContext, useContext, type ReactNode } from 'react';
import { STRINGS, type Locale, type MessageKey } from './strings';

const LocaleContext = createContext<Locale>('en');

export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  return <LocaleContext.Provider value={locale}>{children}</LocaleContext.Provider>;
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

/** Components outside a provider (tests, the launcher) speak English. */
export function useT(): Translate {
  const table = STRINGS[useContext(LocaleContext)];
  return (key, values = {}) => table[key].replace(/\{(\w+)\}/g, (_match, name: string) => String(values[name] ?? `{${name}}`));
}
