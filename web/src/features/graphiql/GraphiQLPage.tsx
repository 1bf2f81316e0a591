// Monaco's language workers must be registered before the editor mounts; this is graphiql's Vite recipe.
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createClient } from 'graphql-ws';
import { useMemo } from 'react';
import { graphqlWsUrl } from '../../apollo-client';

/** The whole API against this session: same-origin cookie over HTTP, and graphql-ws for subscriptions. */
export default function GraphiQLPage() {
  const fetcher = useMemo(
    () =>
      createGraphiQLFetcher({
        url: '/graphql',
        // Same rules as the app's own client: the cookie session, and the header CSRF prevention requires.
        fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin' }),
        headers: { 'apollo-require-preflight': 'true' },
        wsClient: createClient({ url: graphqlWsUrl(), lazy: true }),
      }),
    [],
  );

  return (
    <div className="graphiql-page">
      <nav className="graphiql-bar" aria-label="GraphiQL">
        <a href="/">← Back to Plaza</a>
      </nav>
      <div className="graphiql-host">
        <GraphiQL fetcher={fetcher} />
      </div>
    </div>
  );
}
