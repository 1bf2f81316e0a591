import { en, type Locale, type MessageKey } from './strings';

export type Words = Record<MessageKey, string>;

/**
 * The words of each language this page has. English comes with every page's first load; the Vietnamese
 * table (more bytes than English in UTF-8, and unused by most visitors) loads when a person's language
 * is Vietnamese, so the store's first load does not carry both languages.
 */
const loaded: Partial<Record<Locale, Words>> = { en };
const loaders: Record<Exclude<Locale, 'en'>, () => Promise<Words>> = {
  vi: () => import('./strings-vi').then((module) => module.vi),
};
const pending = new Map<Locale, Promise<Words>>();
let allEnglish: Promise<void> | undefined;
const listeners = new Set<() => void>();

/** The language's words if this page has them yet. */
export function wordsOf(locale: Locale): Words | undefined {
  return loaded[locale];
}

/** Fetches the language's words once; a failed fetch (Plaza out of reach) may be asked for again. */
export function loadWords(locale: Locale): Promise<Words> {
  const words = loaded[locale];
  if (words) return Promise.resolve(words);
  let load = pending.get(locale);
  if (!load) {
    load = loaders[locale as Exclude<Locale, 'en'>]().then(
      (table) => {
        loaded[locale] = table;
        pending.delete(locale);
        listeners.forEach((listener) => listener());
        return table;
      },
      (error: unknown) => {
        pending.delete(locale);
        throw error;
      },
    );
    pending.set(locale, load);
  }
  return load;
}

/**
 * The English words the store's first load leaves out (first-load-words.ts), fetched once: a page other
 * than the store's list loads them with its code, so they are here before it draws a word, in English or
 * after a switch to it. A failed fetch may be asked for again.
 */
export function loadAllWords(): Promise<void> {
  return (allEnglish ??= import('./strings-en-rest').then(
    (module) => {
      loaded.en = { ...module.en, ...loaded.en };
    },
    (error: unknown) => {
      allEnglish = undefined;
      throw error;
    },
  ));
}

/** Called each time a language's words arrive. */
export function onWordsLoaded(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether this build has words for `key` (the same keys in every language). */
export function isMessageKey(key: string): key is MessageKey {
  return key in loaded.en!;
}
