// A .tsx file because the web project runs src/**/*.test.tsx.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIRST_LOAD_WORDS, isFirstLoadWord } from './first-load-words';
import { en } from './strings';

const SRC = path.resolve(import.meta.dirname, '..');
/**
 * Where the store's first load starts: the entry, the store's list and the notifications bell (drawn with the
 * first load's words only) and GraphiQL's page (loaded without lazy-page.ts, so without the rest of the words).
 */
const FIRST_LOAD_ROOTS = ['main.tsx', 'features/store/StorePage.tsx', 'features/notifications/NotificationBell.tsx', 'features/graphiql/GraphiQLPage.tsx'];
const STATIC_IMPORT = /^import (?!type )[^;]*?from '(\.[^']+)';$/gm;

/** The app's own files these import statically, transitively (a dynamic import() is a chunk of its own). */
function staticallyImported(roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      const base = path.resolve(path.dirname(file), specifier!);
      const found = ['.ts', '.tsx', '/index.ts'].map((suffix) => base + suffix).find((candidate) => existsSync(candidate));
      if (found) visit(found);
    }
  };
  roots.forEach((root) => visit(path.join(SRC, root)));
  return [...seen];
}

/** The message keys a file names: whole keys in quotes, and `prefix.${…}` or codeLabel(t, 'prefix', …) as every key under the prefix. */
function keysNamedIn(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  const keys = Object.keys(en);
  const labels = /codeLabel\(t, '([\w.]+)'/g;
  const whole = [...code.replace(labels, '').matchAll(/'([\w.]+)'/g)].map((match) => match[1]!).filter((literal) => literal in en);
  const prefixes = [...code.matchAll(/`([\w.]+)\.\$\{/g), ...code.matchAll(labels)].map((match) => `${match[1]}.`);
  return [...whole, ...prefixes.flatMap((prefix) => keys.filter((key) => key.startsWith(prefix)))];
}

describe('the words of the store’s first load', () => {
  it('has every key that the first load’s own code names, so no page drawn with them misses one', () => {
    const files = staticallyImported(FIRST_LOAD_ROOTS).filter((file) => !file.endsWith('/strings.ts'));
    // The walk reaches the shell and the session as well as the store.
    expect(files.map((file) => path.relative(SRC, file))).toEqual(
      expect.arrayContaining(['features/shell/Shell.tsx', 'features/session/SignInForm.tsx', 'features/store/StoreAppCard.tsx']),
    );
    const missing = files.flatMap((file) =>
      keysNamedIn(file)
        .filter((key) => !isFirstLoadWord(key))
        .map((key) => `${path.relative(SRC, file)}: ${key}`),
    );
    expect([...new Set(missing)]).toEqual([]);
  });

  it('leaves most of the English words to the other pages', () => {
    const keys = Object.keys(en);
    const first = keys.filter(isFirstLoadWord);
    expect(first.length).toBeLessThan(keys.length / 3);
    // Every entry of the list names words that exist.
    expect(FIRST_LOAD_WORDS.filter((word) => !keys.some((key) => (word.endsWith('.') ? key.startsWith(word) : key === word)))).toEqual([]);
  });
});
