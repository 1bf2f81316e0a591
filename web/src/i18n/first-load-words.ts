/**
 * The English words the store's first load carries: those of the shell, the session, the sign-in form,
 * the store's list and a signed-in person's notifications bell, by key prefix (ending in '.') or whole key.
 * The build leaves the others, most of the table and all the developer portal's, to a chunk of their own
 * (vite.config.ts, splitLocaleStrings) that a page loads with its code (lazy-page.ts) before it draws a
 * word. first-load-words.test.tsx checks that every key the first load's own code names is here.
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
  // The notifications bell's, which a signed-in person's store loads: without them it would bring the rest.
  'bell.',
  'notice.',
  'reason.',
];

export function isFirstLoadWord(key: string): boolean {
  return FIRST_LOAD_WORDS.some((word) => (word.endsWith('.') ? key.startsWith(word) : key === word));
}
