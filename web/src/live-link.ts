import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import { graphqlWsUrl } from './apollo-client';
import { plazaReachable, plazaUnreachable } from './connection';

/** The live socket's wait before its next try: 1, 2, 4 s, then 5 s for as long as Plaza is away (a little jitter, so many pages do not return at once). */
const retryWait = (retries: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** retries, 5000) * (0.8 + Math.random() * 0.4)));

/** The link subscriptions go through, loaded with the first of them (apollo-client.ts). */
export function createLiveLink(): GraphQLWsLink {
  let liveOpen = false;
  // Lazy: the socket opens with the first subscription. The upgrade carries the session cookie (same origin).
  return new GraphQLWsLink(
    createClient({
      url: graphqlWsUrl(),
      lazy: true,
      // graphql-ws gives up after 5 tries by default, and live pages then stopped for good: keep trying while anyone listens.
      retryAttempts: Infinity,
      shouldRetry: () => true,
      retryWait,
      on: {
        connected: () => {
          liveOpen = true;
          plazaReachable({ live: true });
        },
        // A retry means the socket dropped while subscriptions were open, whatever code it closed with.
        connecting: (isRetry) => {
          if (isRetry) plazaUnreachable({ live: true });
        },
        closed: (event) => {
          // 1000: closed on purpose (no subscriptions left); anything else while open means the updates stopped.
          const normal = (event as CloseEvent | undefined)?.code === 1000;
          if (liveOpen && !normal) plazaUnreachable({ live: true });
          liveOpen = false;
        },
      },
    }),
  );
}
