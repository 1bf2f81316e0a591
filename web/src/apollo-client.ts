import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import { catchError, tap, throwError } from 'rxjs';
import { isUnreachable, onReconnect, plazaReachable, plazaUnreachable, PlazaUnreachableError } from './connection';

export function graphqlWsUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
}

function isSubscription(document: Parameters<typeof getMainDefinition>[0]): boolean {
  const definition = getMainDefinition(document);
  return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
}

/** The live socket's wait before its next try: 1, 2, 4 s, then 5 s for as long as Plaza is away (a little jitter, so many pages do not return at once). */
const retryWait = (retries: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** retries, 5000) * (0.8 + Math.random() * 0.4)));

/**
 * Tells the connection state what requests meet: an answer means Plaza is there; no answer at all (fetch's
 * TypeError) becomes a PlazaUnreachableError that says so in the person's language instead of "Failed to fetch".
 */
const reachability = new ApolloLink((operation, forward) =>
  forward(operation).pipe(
    tap(() => plazaReachable()),
    catchError((error: unknown) => {
      if (!isUnreachable(error)) return throwError(() => error);
      plazaUnreachable();
      return throwError(() => new PlazaUnreachableError(operation.operationType === 'mutation', error));
    }),
  ),
);

export function createApolloClient() {
  const http = new HttpLink({
    uri: '/graphql',
    // The session is an HTTP-only cookie set by /auth on this same origin.
    credentials: 'same-origin',
    // The server runs Apollo's CSRF prevention, which refuses requests a browser could send without a preflight.
    headers: { 'apollo-require-preflight': 'true' },
  });
  let liveOpen = false;
  // Lazy: the socket opens with the first subscription. The upgrade carries the session cookie (same origin).
  const live = new GraphQLWsLink(
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
  const client = new ApolloClient({
    link: ApolloLink.split(({ query }) => isSubscription(query), live, ApolloLink.from([reachability, http])),
    cache: new InMemoryCache(),
  });
  // What failed while Plaza was away (a page's data, updates missed while live was paused) loads again by itself.
  // Each query that fails again shows its own error, and the next reconnect asks again.
  onReconnect(() => void client.refetchQueries({ include: 'active' }).catch(() => undefined));
  return client;
}
