import { lazy, type ComponentType } from 'react';
import { onReconnect, plazaUnreachable } from './connection';
import { loadAllWords } from './i18n/words';

/**
 * A page whose code loads when it is first shown (issue 27, "lighter": one 661 KB script served the store
 * and the developer portal alike). A chunk that cannot be fetched (Plaza out of reach) is asked for again
 * once Plaza answers, while the page shows its skeleton and the shell says Plaza cannot be reached, rather
 * than the app failing on a rejected import. The page's words come with it: all the English words, unless
 * `firstLoadWords` says the page needs only those of the store's first load (i18n/first-load-words.ts).
 */
export function lazyPage<Props extends object>(load: () => Promise<ComponentType<Props>>, { firstLoadWords = false } = {}) {
  return lazy(
    () =>
      new Promise<{ default: ComponentType<Props> }>((resolve) => {
        // Returns nothing: the rejection handler below is where a failed fetch goes, so no caller holds a promise.
        const attempt = () => {
          Promise.all([load(), firstLoadWords ? undefined : loadAllWords()]).then(
            ([component]) => resolve({ default: component }),
            () => {
              plazaUnreachable();
              const stop = onReconnect(() => {
                stop();
                attempt();
              });
            },
          );
        };
        attempt();
      }),
  );
}
