import { lazy, type ComponentType } from 'react';
import { onReconnect, plazaUnreachable } from './connection';

/**
 * A page whose code loads when it is first shown (issue 27, "lighter": one 661 KB script served the store
 * and the developer portal alike). A chunk that cannot be fetched (Plaza out of reach) is asked for again
 * once Plaza answers, while the page shows its skeleton and the shell says Plaza cannot be reached, rather
 * than the app failing on a rejected import.
 */
export function lazyPage<Props extends object>(load: () => Promise<ComponentType<Props>>) {
  return lazy(
    () =>
      new Promise<{ default: ComponentType<Props> }>((resolve) => {
        // Returns nothing: the rejection handler below is where a failed fetch goes, so no caller holds a promise.
        const attempt = () => {
          load().then(
            (component) => resolve({ default: component }),
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
