import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import type { DeveloperEarningsQuery as EarningsResult, EarningsPeriod } from '../../gql/graphql';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { EarningsChart } from './EarningsChart';
import { DeveloperEarningsQuery } from './insights-queries';

let server: FakePlazaServer;
const calls: GraphqlCall[] = [];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});
afterAll(() => server.close());
afterEach(() => cleanup());

type Bucket = Wire<EarningsResult['developerEarnings']['buckets'][number]>;
const bucket = (start: string, installs: number, purchases: number, refunds: number, netEarningsVnd: number): Bucket => ({
  __typename: 'EarningsBucket',
  start,
  installs,
  purchases,
  refunds,
  netEarningsVnd,
});
const earnings = (period: EarningsPeriod, buckets: Bucket[]): Wire<EarningsResult['developerEarnings']> => ({
  __typename: 'DeveloperEarnings',
  period,
  buckets,
  totalNetEarningsVnd: buckets.reduce((total, one) => total + one.netEarningsVnd, 0),
});

const ANSWERS: Record<EarningsPeriod, Wire<EarningsResult['developerEarnings']>> = {
  DAY: earnings('DAY', [bucket('2030-01-01T00:00:00Z', 3, 2, 0, 80_000), bucket('2030-01-02T00:00:00Z', 1, 1, 1, 0)]),
  WEEK: earnings('WEEK', [bucket('2029-12-30T00:00:00Z', 4, 3, 1, 80_000)]),
  MONTH: earnings('MONTH', [bucket('2029-12-01T00:00:00Z', 0, 0, 0, 0), bucket('2030-01-01T00:00:00Z', 0, 0, 0, 0)]),
};

function renderEarnings() {
  calls.length = 0;
  server.respondWith(graphqlResponder([respond(DeveloperEarningsQuery, ({ period }) => ({ data: { developerEarnings: ANSWERS[period] } }))], calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <EarningsChart />
    </ApolloProvider>,
  );
}

describe('earnings over time', () => {
  it('sums installs, purchases, refunds and net earnings, per day, week and month', async () => {
    renderEarnings();
    await screen.findByText('Last 30 days: installs 4, purchases 3, refunds 1; net earnings ₫80,000.');
    expect(calls.at(-1)).toEqual({ operationName: 'DeveloperEarnings', variables: { period: 'DAY' } });
    const rows = within(screen.getByRole('table', { name: 'Last 30 days: installs, purchases, refunds and net earnings' })).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual(['PeriodInstallsPurchasesRefundsNet earnings', 'Jan 1, 2030320₫80,000', 'Jan 2, 2030111₫0']);

    fireEvent.click(screen.getByRole('button', { name: 'Week' }));
    await screen.findByText('Last 12 weeks: installs 4, purchases 3, refunds 1; net earnings ₫80,000.');
    expect(calls.at(-1)?.variables).toEqual({ period: 'WEEK' });
    expect(screen.getByRole('row', { name: /Week of Dec 30, 2029/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Week' }).getAttribute('aria-pressed')).toBe('true');

    // Nothing in the last 12 months: an empty state, not a flat chart.
    fireEvent.click(screen.getByRole('button', { name: 'Month' }));
    await screen.findByText('Last 12 months: no installs, purchases or refunds yet.');
    expect(screen.queryByRole('table')).toBeNull();
  });
});
