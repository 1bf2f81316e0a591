import { lazy, type ComponentType } from 'react';
import { onReconnect, plazaUnreachable } from './connection';
import { loadApolloClient } from './first-load-query';
import { loadAllWords } from './i18n/words';

/**
 * A page whose code loads when it is first shown (issue 27, "lighter": one 661 KB script served the store
 * and the developer portal alike). A chunk that cannot be fetched (Plaza out of reach) is asked for again
 * once Plaza answers, while the page shows its skeleton and the shell says Plaza cannot be reached, rather
 * than the app failing on a rejected import. The page's words come with it: all the English words, unless
 * `firstLoadWords` says the page needs only those of the store's first load (i18n/first-load-words.ts).
 * Apollo Client comes with it too, the page drawn inside its provider, unless `apollo` is false: the store's
 * list reads its data without it (first-load-query.ts).
 */
export function lazyPage<Props extends object>(load: () => Promise<ComponentType<Props>>, { firstLoadWords = false, apollo = true } = {}) {
  return lazy(
    () =>
      new Promise<{ default: ComponentType<Props> }>((resolve) => {
        // Returns nothing: the rejection handler below is where a failed fetch goes, so no caller holds a promise.
        const attempt = () => {
          Promise.all([load(), firstLoadWords ? undefined : loadAllWords(), apollo ? withApolloClient() : undefined]).then(
            ([component, , provide]) => resolve({ default: provide ? provide(component) : component }),
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

/** Wraps a page in Apollo's provider, once Apollo Client and the provider's code are loaded. */
export function withApolloClient() {
  return Promise.all([loadApolloClient(), import('./apollo-provided')]).then(
    ([client, module]) =>
      <Props extends object>(component: ComponentType<Props>) =>
        module.withApollo(component, client),
  );
}
