import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';

export function createApolloClient() {
  return new ApolloClient({
    link: new HttpLink({
      uri: '/graphql',
      // The session is an HTTP-only cookie set by /auth on this same origin.
      credentials: 'same-origin',
      // The server runs Apollo's CSRF prevention, which refuses requests a browser could send without a preflight.
      headers: { 'apollo-require-preflight': 'true' },
    }),
    cache: new InMemoryCache(),
  });
}
