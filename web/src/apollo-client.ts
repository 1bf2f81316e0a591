import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';

export function graphqlWsUrl(location: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
}

function isSubscription(document: Parameters<typeof getMainDefinition>[0]): boolean {
  const definition = getMainDefinition(document);
  return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
}

export function createApolloClient() {
  const http = new HttpLink({
    uri: '/graphql',
    // The session is an HTTP-only cookie set by /auth on this same origin.
    credentials: 'same-origin',
    // The server runs Apollo's CSRF prevention, which refuses requests a browser could send without a preflight.
    headers: { 'apollo-require-preflight': 'true' },
  });
  // Lazy: the socket opens with the first subscription. The upgrade carries the session cookie (same origin).
  const live = new GraphQLWsLink(createClient({ url: graphqlWsUrl(), lazy: true }));
  return new ApolloClient({
    link: ApolloLink.split(({ query }) => isSubscription(query), live, http),
    cache: new InMemoryCache(),
  });
}
