import { cleanup, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpdatePreferencesMutation } from './features/shell/preferences';
import { CurrentViewerQuery } from './features/session/current-viewer';
import { loadApolloClient, useQuery } from './first-load-query';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from './test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall } from './test-support/graphql-responder';

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

function Viewer() {
  const viewer = useQuery(CurrentViewerQuery, { fetchPolicy: 'cache-and-network' });
  if (viewer.error) return <p>{viewer.error.message}</p>;
  const me = viewer.data?.me;
  return <p>{me ? `${me.email} reads ${me.locale}` : 'checking'}</p>;
}

describe('the store’s first load without Apollo Client', () => {
  it('reads a query with a plain fetch, then hands it to Apollo without fetching it again, and shows what Apollo’s cache learns later', async () => {
    const calls: GraphqlCall[] = [];
    server.respondWith(
      graphqlResponder(
        [
          respond(CurrentViewerQuery, { data: { me: { __typename: 'Viewer', id: 'u-1', email: 'ann@example.com', roles: [], points: 5, locale: 'en', theme: 'light' } } }),
          respond(UpdatePreferencesMutation, { data: { updatePreferences: { __typename: 'Viewer', id: 'u-1', locale: 'vi', theme: 'dark' } } }),
        ],
        calls,
      ),
    );
    render(<Viewer />);
    await screen.findByText('ann@example.com reads en');
    // Sent as Apollo would send it, with the __typename its cache files objects by.
    const sent = JSON.parse(server.requests[0]!.body) as { operationName: string; query: string };
    expect(sent.operationName).toBe('CurrentViewer');
    expect(sent.query).toMatch(/theme\s+__typename\s+\}/);

    // Apollo arrives later (another page, an action): what was fetched goes into its cache, and the same component now reads from it.
    const client = await loadApolloClient();
    await client.mutate({ mutation: UpdatePreferencesMutation, variables: { locale: 'vi', theme: 'dark' } });
    await screen.findByText('ann@example.com reads vi');
    await server.roundTrip();
    expect(calls.map((call) => call.operationName)).toEqual(['CurrentViewer', 'UpdatePreferences']);
  });
});
