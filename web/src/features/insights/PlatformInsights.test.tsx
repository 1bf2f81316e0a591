import { ApolloProvider } from '@apollo/client/react';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import type { PlatformStatsQuery as PlatformStatsResult } from '../../gql/graphql';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type Wire } from '../../test-support/graphql-responder';
import { PlatformStatsQuery } from './insights-queries';
import { PlatformInsights } from './PlatformInsights';

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});
afterAll(() => server.close());
afterEach(() => cleanup());

type Stats = Wire<PlatformStatsResult['platformStats']>;
const minutes = (counts: [number, number][]): Stats['deliveriesPerMinute'] =>
  Array.from({ length: 60 }, (_, index) => {
    const [succeeded, failed] = counts[index - (60 - counts.length)] ?? [0, 0];
    return { __typename: 'PlatformDeliveryMinute', start: new Date(Date.parse('2030-01-02T12:00:00Z') - (59 - index) * 60_000).toISOString(), succeeded, failed };
  });

function renderStats(stats: Stats) {
  server.respondWith(graphqlResponder([respond(PlatformStatsQuery, { data: { platformStats: stats } })]));
  render(
    <ApolloProvider client={createApolloClient()}>
      <PlatformInsights />
    </ApolloProvider>,
  );
}

describe('the admin’s platform view', () => {
  it('shows the last hour’s failure rate, the queue’s ages against 24 hours, and the apps failing most', async () => {
    renderStats({
      __typename: 'PlatformStats',
      failureRate: 0.25,
      deliveriesPerMinute: minutes([
        [10, 2],
        [5, 3],
      ]),
      reviewQueue: [
        { __typename: 'ReviewQueueAge', appId: 'app_old', appName: 'Slow Poke', submittedAt: '2030-01-01T02:00:00Z', waitingHours: 30.5, overdue: true },
        { __typename: 'ReviewQueueAge', appId: 'app_new', appName: 'Fresh', submittedAt: '2030-01-02T10:00:00Z', waitingHours: 2, overdue: false },
      ],
      appsFailingMost: [{ __typename: 'FailingApp', appId: 'app_bad', appName: 'Broken Hook', failedAttempts: 9, attempts: 12, failureRate: 0.75 }],
    });
    await screen.findByText('Last hour: 5 of 20 webhook attempts failed (25%).');
    expect(within(screen.getByRole('table', { name: 'Webhook attempts per minute, last hour' })).getAllByRole('row')).toHaveLength(61);

    expect(screen.getByText('2 waiting, 1 overdue.')).toBeTruthy();
    const queue = screen.getByRole('table', { name: 'Review queue against the 24-hour promise' });
    const [, oldest, newest] = within(queue).getAllByRole('row');
    expect(oldest!.textContent).toContain('Slow Poke');
    expect(oldest!.textContent).toContain('30.5 hr');
    expect(oldest!.textContent).toContain('Overdue');
    expect(oldest!.className).toBe('overdue');
    expect(newest!.textContent).not.toContain('Overdue');
    expect(newest!.className).toBe('');

    const failing = screen.getByRole('table', { name: 'Apps whose webhooks fail most, last 24 hours' });
    expect(within(failing).getByRole('row', { name: /Broken Hook/ }).textContent).toBe('Broken Hook9 of 1275%');
  });

  it('says so when nothing happened', async () => {
    renderStats({ __typename: 'PlatformStats', failureRate: null, deliveriesPerMinute: minutes([]), reviewQueue: [], appsFailingMost: [] });
    await screen.findByText('No webhook attempts in the last hour.');
    expect(screen.getByText('No submissions are waiting for review.')).toBeTruthy();
    expect(screen.getByText('No failed webhook attempts in the last 24 hours.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
  });
});
