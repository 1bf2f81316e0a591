import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { getMainDefinition } from '@apollo/client/utilities';
import { catchError, defer, mergeMap, Observable, retry, tap, throwError } from 'rxjs';
import { isUnreachable, onReconnect, plazaReachable, plazaUnreachable, PlazaUnreachableError } from './connection';

export function graphqlWsUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
}

function isSubscription(document: Parameters<typeof getMainDefinition>[0]): boolean {
  const definition = getMainDefinition(document);
  return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
}

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

/** Completes once Plaza answers again after it could not be reached. */
const plazaAnswers = () =>
  new Observable<void>((subscriber) =>
    onReconnect(() => {
      subscriber.next();
      subscriber.complete();
    }),
  );

/**
 * Subscriptions go over graphql-ws, whose client loads with the first one: the store's visitors subscribe
 * to nothing, so their first load does not carry it. A chunk that cannot be fetched (Plaza out of reach)
 * pauses live updates, as a dropped socket does, and is asked for again once Plaza answers.
 */
function liveLink(): ApolloLink {
  let live: Promise<ApolloLink> | undefined;
  const load = () =>
    (live ??= import('./live-link').then(
      (module) => module.createLiveLink(),
      (error: unknown) => {
        live = undefined;
        throw error;
      },
    ));
  return new ApolloLink((operation, forward) =>
    // defer, not from(load()): a retry subscribes again, and must ask for the chunk again rather than meet the
    // same rejected promise (the live client then never loaded, and the page said Plaza was unreachable for good).
    defer(load).pipe(
      retry({
        delay: () => {
          plazaUnreachable({ live: true });
          return plazaAnswers();
        },
      }),
      mergeMap((link) => link.request(operation, forward)),
    ),
  );
}

export function createApolloClient() {
  const http = new HttpLink({
    uri: '/graphql',
    // The session is an HTTP-only cookie set by /auth on this same origin.
    credentials: 'same-origin',
    // The server runs Apollo's CSRF prevention, which refuses requests a browser could send without a preflight.
    headers: { 'apollo-require-preflight': 'true' },
  });
  const client = new ApolloClient({
    link: ApolloLink.split(({ query }) => isSubscription(query), liveLink(), ApolloLink.from([reachability, http])),
    cache: new InMemoryCache(),
  });
  // What failed while Plaza was away (a page's data, updates missed while live was paused) loads again by itself.
  // Each query that fails again shows its own error, and the next reconnect asks again.
  onReconnect(() => void client.refetchQueries({ include: 'active' }).catch(() => undefined));
  return client;
}
