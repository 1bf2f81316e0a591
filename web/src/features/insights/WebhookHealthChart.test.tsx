import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import type { StatsWindow, WebhookDeliveryStatsQuery as StatsResult, WebhookState } from '../../gql/graphql';
import { LocaleProvider } from '../../i18n/i18n';
import type { Locale } from '../../i18n/strings';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import { AppWebhookStateQuery } from '../webhook-logs/webhook-health';
import { WebhookHealthPanel } from '../webhook-logs/WebhookHealthPanel';
import { WebhookDeliveryStatsQuery } from './insights-queries';
import { WebhookHealthChart } from './WebhookHealthChart';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});
afterAll(() => server.close());
afterEach(() => cleanup());

const HOUR = 3_600_000;
const NOW = Date.parse('2030-01-02T12:00:00Z');

/** Hourly buckets oldest first, as the server sends them; `counts` fills the newest ones ([succeeded, failed]). */
function stats(window: StatsWindow, counts: [number, number][], more: Partial<Wire<StatsResult['webhookDeliveryStats']>> = {}): Wire<StatsResult['webhookDeliveryStats']> {
  const hours = window === 'LAST_24_HOURS' ? 24 : 168;
  const buckets = Array.from({ length: hours }, (_, index) => {
    const [succeeded, failed] = counts[index - (hours - counts.length)] ?? [0, 0];
    return { __typename: 'DeliveryVolumeBucket', start: new Date(NOW - (hours - 1 - index) * HOUR).toISOString(), succeeded, failed };
  });
  return { __typename: 'WebhookDeliveryStats', window, buckets, successRate: null, latencyP50Ms: null, latencyP95Ms: null, webhookState: null, ...more };
}

function renderWith(operations: FakeOperation[], element: React.ReactNode, locale: Locale = 'en') {
  calls = [];
  server.respondWith(graphqlResponder(operations, calls));
  render(
    <ApolloProvider client={createApolloClient()}>
      <LocaleProvider locale={locale}>{element}</LocaleProvider>
    </ApolloProvider>,
  );
}

const byWindow = (answers: Record<StatsWindow, Wire<StatsResult['webhookDeliveryStats']>>) =>
  respond(WebhookDeliveryStatsQuery, ({ window }) => ({ data: { webhookDeliveryStats: answers[window] } }));

describe('webhook health chart', () => {
  it('sums the hours in words, switches to 7 days, and lists every hour in its table', async () => {
    renderWith(
      [
        byWindow({
          LAST_24_HOURS: stats(
            'LAST_24_HOURS',
            [
              [300, 0],
              [4, 8],
            ],
            { successRate: 304 / 312, latencyP50Ms: 120, latencyP95Ms: 840 },
          ),
          LAST_7_DAYS: stats(
            'LAST_7_DAYS',
            [
              [1000, 0],
              [0, 0],
              [500, 500],
            ],
            { successRate: 0.75, latencyP50Ms: 95, latencyP95Ms: 1_250 },
          ),
        }),
      ],
      <WebhookHealthChart appId="app_1" />,
    );

    await screen.findByText('Last 24 hours: 304 of 312 delivery attempts succeeded (97.4%); latency p50 120 ms, p95 840 ms.');
    expect(calls.at(-1)).toEqual({ operationName: 'WebhookDeliveryStats', variables: { appId: 'app_1', window: 'LAST_24_HOURS' } });
    const table = screen.getByRole('table', { name: 'Last 24 hours: delivery attempts per hour' });
    // One row per hour plus the header row; the newest hour last, with its numbers.
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(25);
    expect(
      within(rows[24]!)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['4', '8']);
    expect(screen.getByText('Show as table').closest('details')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Last 24 hours' }).getAttribute('aria-pressed')).toBe('true');

    fireEvent.click(screen.getByRole('button', { name: 'Last 7 days' }));
    await screen.findByText('Last 7 days: 1,500 of 2,000 delivery attempts succeeded (75%); latency p50 95 ms, p95 1,250 ms.', {}, { timeout: 10_000 });
    expect(calls.at(-1)?.variables).toEqual({ appId: 'app_1', window: 'LAST_7_DAYS' });
    expect(screen.getByRole('button', { name: 'Last 7 days' }).getAttribute('aria-pressed')).toBe('true');
    // Counted by selector: role queries over 169 rows take seconds in happy-dom.
    expect(screen.getByRole('table', { name: 'Last 7 days: delivery attempts per hour' }).querySelectorAll('tr')).toHaveLength(169);
  }, 30_000); // 193 table rows in happy-dom: seconds on a busy two-core machine

  it('says plainly when nothing was attempted, for all the developer’s apps', async () => {
    renderWith([byWindow({ LAST_24_HOURS: stats('LAST_24_HOURS', []), LAST_7_DAYS: stats('LAST_7_DAYS', []) })], <WebhookHealthChart />);
    await screen.findByText('No deliveries in the last 24 hours.');
    expect(screen.getByRole('heading', { name: 'Webhook deliveries of all your apps' })).toBeTruthy();
    // No appId: the numbers of every app the developer owns.
    expect(calls.at(-1)?.variables).toEqual({ window: 'LAST_24_HOURS' });
    expect(screen.queryByRole('table')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Last 7 days' }));
    await screen.findByText('No deliveries in the last 7 days.');
  });

  // Intl's own words for the unit: "mili giây", not "ms".
  it('speaks Vietnamese with Vietnamese numbers', async () => {
    renderWith(
      [
        byWindow({
          LAST_24_HOURS: stats('LAST_24_HOURS', [[1200, 34]], { successRate: 1200 / 1234, latencyP50Ms: 80, latencyP95Ms: 1_500 }),
          LAST_7_DAYS: stats('LAST_7_DAYS', []),
        }),
      ],
      <WebhookHealthChart appId="app_1" />,
      'vi',
    );
    await screen.findByText('24 giờ qua: 1.200/1.234 lần gửi thành công (97,2%); độ trễ p50 80 mili giây, p95 1.500 mili giây.');
    expect(screen.getByText('Xem dạng bảng')).toBeTruthy();
  });
});

describe('the webhook state banner (WebhookHealthPanel)', () => {
  const appState = (webhookState: WebhookState) => respond(AppWebhookStateQuery, { data: { app: { __typename: 'App', id: 'app_1', webhookState } } });

  it('warns of a failing webhook and links to its failed deliveries', async () => {
    renderWith(
      [
        appState('ENABLED'),
        byWindow({
          LAST_24_HOURS: stats(
            'LAST_24_HOURS',
            [
              [5, 0],
              [0, 3],
            ],
            { webhookState: 'ENABLED' },
          ),
          LAST_7_DAYS: stats('LAST_7_DAYS', []),
        }),
      ],
      <WebhookHealthPanel appId="app_1" recovery={false} />,
    );
    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('Webhook failing');
    expect(banner.textContent).toContain('3 of 8 attempts in the last 24 hours');
    expect(within(banner).getByRole('link', { name: 'See failed deliveries' }).getAttribute('href')).toBe('/developer/webhooks?appId=app_1&status=FAILED');
  });

  it('shows an enabled webhook whose latest hour succeeded as enabled', async () => {
    renderWith(
      [
        appState('ENABLED'),
        byWindow({
          LAST_24_HOURS: stats(
            'LAST_24_HOURS',
            [
              [0, 3],
              [2, 1],
            ],
            { webhookState: 'ENABLED' },
          ),
          LAST_7_DAYS: stats('LAST_7_DAYS', []),
        }),
      ],
      <WebhookHealthPanel appId="app_1" recovery={false} />,
    );
    await screen.findByText('Webhook enabled');
    await waitFor(() => expect(calls.some((call) => call.operationName === 'WebhookDeliveryStats')).toBe(true));
    await server.roundTrip();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('links a disabled webhook’s banner to its failed deliveries', async () => {
    renderWith(
      [appState('DISABLED'), byWindow({ LAST_24_HOURS: stats('LAST_24_HOURS', [[0, 3]], { webhookState: 'DISABLED' }), LAST_7_DAYS: stats('LAST_7_DAYS', []) })],
      <WebhookHealthPanel appId="app_1" recovery={false} />,
    );
    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('Webhook disabled');
    expect(within(banner).getByRole('link', { name: 'See failed deliveries' }).getAttribute('href')).toBe('/developer/webhooks?appId=app_1&status=FAILED');
  });
});
