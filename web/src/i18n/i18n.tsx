import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { onReconnect, plazaUnreachable } from '../connection';
import { localeFormat, type LocaleFormat } from './dates';
import type { Locale, MessageKey } from './strings';
import { isMessageKey, loadWords, onWordsLoaded, wordsOf } from './words';

const LocaleContext = createContext<Locale>('en');

/**
 * Speaks `locale` once its words are here, and until then the language it spoke before (English at first):
 * a switch to Vietnamese fetches its words, and the page changes language when they arrive.
 */
export function LocaleProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  const ready = useWordsReady(locale);
  const [before, setBefore] = useState<Locale>('en');
  if (ready && before !== locale) setBefore(locale);
  return <LocaleContext.Provider value={ready ? locale : before}>{children}</LocaleContext.Provider>;
}

/** Whether the language's words are here; asks for them if not, and again once Plaza answers if that failed. */
export function useWordsReady(locale: Locale): boolean {
  const ready = useSyncExternalStore(onWordsLoaded, () => wordsOf(locale) !== undefined);
  useEffect(() => {
    if (ready) return;
    let stopped = false;
    let stopWaiting = () => {};
    const attempt = () => {
      loadWords(locale).catch(() => {
        if (stopped) return;
        // Like a page's code: the shell says Plaza cannot be reached, and the words are asked for when it answers.
        plazaUnreachable();
        stopWaiting = onReconnect(() => {
          stopWaiting();
          attempt();
        });
      });
    };
    attempt();
    return () => {
      stopped = true;
      stopWaiting();
    };
  }, [locale, ready]);
  return ready;
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
  // The provider speaks only a language whose words are here.
  const table = wordsOf(locale)!;
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
  return isMessageKey(key) ? t(key) : fallback;
}
