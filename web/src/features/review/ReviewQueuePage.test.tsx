import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { graphqlResponder, respond, type GraphqlCall, type Reply, type Wire } from '../../test-support/graphql-responder';
import { CurrentViewerQuery } from '../session/current-viewer';
import { TopNav } from '../shell/TopNav';
import { ReviewQueuePage } from './ReviewQueuePage';
import { ReviewQueueQuery } from './review-operations';

type QueueAnswer = Wire<ResultOf<typeof ReviewQueueQuery>>;
type QueuedApp = QueueAnswer['reviewQueue']['edges'][number]['node'];

const REVIEWER = { __typename: 'Viewer', id: 'reviewer-1' };

const queued = (id: string, name: string, overdue: boolean, ownerId = 'dev-1'): QueuedApp => ({
  __typename: 'App',
  id,
  ownerId,
  name,
  shortDescription: `${name} in short`,
  category: 'games',
  pricing: 'FREE',
  pricePoints: null,
  appUrl: `https://${id}.example/`,
  submittedAt: '2026-11-20T08:00:00.000Z',
  reviewDueAt: '2026-11-21T08:00:00.000Z',
  reviewOverdue: overdue,
  developer: {
    __typename: 'AppDeveloper',
    id: ownerId,
    name: `maker-${ownerId}`,
    email: `maker-${ownerId}@studio.example`,
    otherApps: [{ __typename: 'App', id: `${id}-older`, name: 'Older', status: 'APPROVED' }],
    decisions: { __typename: 'DeveloperDecisionCounts', approved: 3, rejected: 1 },
  },
});

const page = (apps: QueuedApp[], endCursor: string | null): Reply<QueueAnswer> => ({
  data: {
    me: REVIEWER,
    reviewQueue: {
      __typename: 'AppConnection',
      edges: apps.map((node) => ({ __typename: 'AppEdge', cursor: node.id, node })),
      pageInfo: { __typename: 'PageInfo', hasNextPage: endCursor !== null, endCursor },
    },
  },
});

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

describe('Review queue', () => {
  it('marks overdue apps in words and loads more after the last one', async () => {
    const calls: GraphqlCall[] = [];
    server.respondWith(
      graphqlResponder([respond(ReviewQueueQuery, ({ after }) => (after ? page([queued('b', 'Beta', false)], null) : page([queued('a', 'Alpha', true)], 'a')))], calls),
    );
    render(
      <ApolloProvider client={createApolloClient()}>
        <ReviewQueuePage />
      </ApolloProvider>,
    );

    const alpha = await screen.findByRole('link', { name: 'Alpha' });
    expect(alpha.getAttribute('href')).toBe('/review/a');
    expect(screen.getByText('Overdue')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Load more' }));
    await screen.findByRole('link', { name: 'Beta' });
    expect(screen.getAllByRole('link').map((link) => link.textContent)).toEqual(['Alpha', 'Beta']);
    expect(calls.map((call) => call.variables)).toEqual([{ first: 25 }, { first: 25, after: 'a' }]);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull());
    expect(screen.queryByText('Your app: another reviewer decides')).toBeNull();
  });

  it('says who made each app and shows its category in words', async () => {
    server.respondWith(graphqlResponder([respond(ReviewQueueQuery, page([queued('a', 'Alpha', false)], null))], []));
    render(
      <ApolloProvider client={createApolloClient()}>
        <ReviewQueuePage />
      </ApolloProvider>,
    );
    const entry = (await screen.findByRole('link', { name: 'Alpha' })).closest('li')!;
    expect(entry.textContent).toContain('By maker-dev-1 · Other apps: 1 · Approved: 3 · Rejected: 1');
    expect(entry.textContent).toContain('Games · Free');
  });

  it('marks the reviewer’s own app as one another reviewer decides', async () => {
    server.respondWith(graphqlResponder([respond(ReviewQueueQuery, page([queued('a', 'Alpha', false), queued('m', 'Mine', false, REVIEWER.id)], null))], []));
    render(
      <ApolloProvider client={createApolloClient()}>
        <ReviewQueuePage />
      </ApolloProvider>,
    );
    const mine = (await screen.findByRole('link', { name: 'Mine' })).closest('li')!;
    expect(mine.textContent).toContain('Your app: another reviewer decides');
    expect(screen.getByRole('link', { name: 'Alpha' }).closest('li')!.textContent).not.toContain('Your app');
  });
});

describe('Navigation for reviewers and admins', () => {
  function renderNavFor(roles: string[]) {
    const client = createApolloClient();
    // Held in a variable because the generated type leaves out the __typename the cache wants.
    const me = { __typename: 'Viewer', id: 'u-1', email: 'r@example.com', roles, points: 0, locale: 'en', theme: 'light' };
    client.writeQuery({ query: CurrentViewerQuery, data: { me } });
    render(
      <ApolloProvider client={client}>
        <TopNav route={{ kind: 'review-queue' }} />
      </ApolloProvider>,
    );
  }

  it('shows Review to reviewers only', () => {
    renderNavFor(['REVIEWER']);
    expect(screen.getByRole('link', { name: 'Review' }).getAttribute('aria-current')).toBe('page');
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull();
  });

  it('shows Review and Admin to admins', () => {
    renderNavFor(['ADMIN']);
    expect(screen.getByRole('link', { name: 'Review' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Admin' })).toBeTruthy();
  });

  it('shows neither to other users', () => {
    renderNavFor([]);
    expect(screen.queryByRole('link', { name: 'Review' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Admin' })).toBeNull();
  });
});
