/**
 * The English words a store visitor's first load carries: those of the shell, the session, the sign-in
 * form and the store's list, by key prefix (ending in '.') or whole key. The build leaves the others, most
 * of the table and all the developer portal's, to a chunk of their own (vite.config.ts, splitLocaleStrings)
 * that a page loads with its code (lazy-page.ts) before it draws a word. first-load-words.test.tsx checks
 * that every key the first load's own code names is here.
 */
export const FIRST_LOAD_WORDS: readonly string[] = [
  'loading',
  'error.',
  'nav.',
  'shell.',
  'session.',
  'connection.',
  'store.',
  'category.',
  'serverError.',
  'admin.role.',
  'graphiql.',
];

export function isFirstLoadWord(key: string): boolean {
  return FIRST_LOAD_WORDS.some((word) => (word.endsWith('.') ? key.startsWith(word) : key === word));
}
