import { ApolloProvider } from '@apollo/client/react';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useLocationRoute } from '../../routes';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall } from '../../test-support/graphql-responder';
import { WebhookDeliveryStatsQuery } from '../insights/insights-queries';
import { clientWithLiveFeed, delivery, deliveryPage } from './test-deliveries';
import { SendTestWebhookMutation, WebhookDeliveriesQuery, WebhookLogAppsQuery } from './webhook-deliveries';
import { WebhookLogsPage } from './WebhookLogsPage';

const apps = respond(WebhookLogAppsQuery, { data: { myApps: [{ __typename: 'App', id: 'app_1', name: 'Quiz Time', iconUrl: 'https://quiz.example/icon.png' }] } });

/** The page's health chart asks for its numbers too: no attempts keeps it quiet here. */
const noDeliveryStats = respond(WebhookDeliveryStatsQuery, ({ window }) => ({
  data: { webhookDeliveryStats: { __typename: 'WebhookDeliveryStats', window, buckets: [], successRate: null, latencyP50Ms: null, latencyP95Ms: null, webhookState: null } },
}));

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
});

afterAll(() => server.close());

beforeEach(() => {
  browseFrom(server.origin);
  calls = [];
});

afterEach(() => cleanup());

/** The page as the app mounts it: the URL's query string is its filter. */
function RoutedLogs() {
  const route = useLocationRoute();
  return route.kind === 'webhook-logs' ? <WebhookLogsPage query={route.query} /> : null;
}

function renderAt(path: string) {
  window.history.pushState(null, '', path);
  const { client, live } = clientWithLiveFeed();
  render(
    <ApolloProvider client={client}>
      <RoutedLogs />
    </ApolloProvider>,
  );
  return live;
}

const listCalls = () => calls.filter((call) => call.operationName === 'WebhookDeliveries');
const rowStatus = (id: string) => within(screen.getByTestId(`delivery-${id}`)).getByTestId('delivery-status').textContent;

describe('webhook logs', () => {
  it('sends the filters from the URL and from the form, and keeps them in the URL', async () => {
    server.respondWith(graphqlResponder([apps, noDeliveryStats, respond(WebhookDeliveriesQuery, deliveryPage([delivery('dlv_1', 'FAILED')]))], calls));
    renderAt('/developer/webhooks?appId=app_1&status=FAILED');

    expect(await screen.findByTestId('delivery-dlv_1')).toBeTruthy();
    expect(listCalls()[0]?.variables).toEqual({ filter: { appId: 'app_1', status: 'FAILED' }, first: 25 });

    fireEvent.change(screen.getByLabelText('Event'), { target: { value: 'APP_REFUNDED' } });
    const purchaseId = screen.getByLabelText('Purchase ID');
    fireEvent.change(purchaseId, { target: { value: 'pur_9' } });
    fireEvent.keyDown(purchaseId, { key: 'Enter' });
    fireEvent.change(screen.getByLabelText('Since'), { target: { value: '2030-01-02T03:04' } });
    fireEvent.change(screen.getByLabelText('Until'), { target: { value: '2030-01-03T00:00' } });

    const since = new Date('2030-01-02T03:04').toISOString();
    const until = new Date(new Date('2030-01-03T00:00').getTime() + 59_999).toISOString();
    await waitFor(() =>
      expect(listCalls().at(-1)?.variables).toEqual({
        filter: { appId: 'app_1', status: 'FAILED', event: 'APP_REFUNDED', purchaseId: 'pur_9', since, until },
        first: 25,
      }),
    );
    expect(Object.fromEntries(new URLSearchParams(window.location.search))).toEqual({
      appId: 'app_1',
      status: 'FAILED',
      event: 'APP_REFUNDED',
      purchaseId: 'pur_9',
      since: '2030-01-02T03:04',
      until: '2030-01-03T00:00',
    });
    expect((screen.getByLabelText('Status') as HTMLSelectElement).value).toBe('FAILED');
  });

  it('loads the next page after the end cursor', async () => {
    server.respondWith(
      graphqlResponder(
        [
          apps,
          noDeliveryStats,
          respond(WebhookDeliveriesQuery, ({ after }) => (after ? deliveryPage([delivery('dlv_1', 'SUCCEEDED')]) : deliveryPage([delivery('dlv_2', 'SUCCEEDED')], 'c_dlv_2'))),
        ],
        calls,
      ),
    );
    renderAt('/developer/webhooks');
    fireEvent.click(await screen.findByRole('button', { name: 'Load more' }));

    expect(await screen.findByTestId('delivery-dlv_1')).toBeTruthy();
    expect(listCalls().at(-1)?.variables).toEqual({ filter: {}, first: 25, after: 'c_dlv_2' });
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('changes a row in place and adds a new delivery on top when updates arrive live', async () => {
    server.respondWith(graphqlResponder([apps, noDeliveryStats, respond(WebhookDeliveriesQuery, deliveryPage([delivery('dlv_1', 'PENDING')]))], calls));
    const live = renderAt('/developer/webhooks?appId=app_1');
    await screen.findByTestId('delivery-dlv_1');
    expect(rowStatus('dlv_1')).toMatch(/Pending/);
    const fetchesBefore = listCalls().length;

    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_1', 'FAILED', { attemptCount: 6 }) } } }));

    await waitFor(() => expect(rowStatus('dlv_1')).toMatch(/Failed/));
    expect(within(screen.getByTestId('delivery-dlv_1')).getByText('6')).toBeTruthy();

    act(() =>
      live.simulateResult({
        result: { data: { webhookDeliveryUpdated: delivery('dlv_2', 'RETRYING', { createdAt: '2030-01-01T01:00:00.000Z', nextAttemptAt: '2030-01-01T01:05:00.000Z' }) } },
      }),
    );

    await screen.findByTestId('delivery-dlv_2');
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows.map((row) => row.getAttribute('data-testid'))).toEqual(['delivery-dlv_2', 'delivery-dlv_1']);
    expect(within(screen.getByTestId('delivery-dlv_2')).getByText(new Date('2030-01-01T01:05:00.000Z').toLocaleString())).toBeTruthy();
    expect(listCalls().length).toBe(fetchesBefore);
  });

  it('sends a test event for the selected app and shows why it cannot when there is no webhook URL', async () => {
    let hasWebhookUrl = false;
    server.respondWith(
      graphqlResponder(
        [
          apps,
          noDeliveryStats,
          respond(WebhookDeliveriesQuery, deliveryPage([delivery('dlv_1', 'SUCCEEDED')])),
          respond(SendTestWebhookMutation, () =>
            hasWebhookUrl
              ? { data: { sendTestWebhook: delivery('dlv_test', 'PENDING', { event: 'APP_TEST', eventName: 'app.test', createdAt: '2030-01-02T00:00:00.000Z' }) } }
              : // As WebhookEventsService answers for an app without a webhook URL.
                {
                  data: null,
                  errors: [{ message: 'This app has no webhook URL; set one before sending a test event', extensions: { code: 'BAD_USER_INPUT', field: 'webhookUrl' } }],
                },
          ),
        ],
        calls,
      ),
    );
    renderAt('/developer/webhooks?appId=app_1');
    await screen.findByTestId('delivery-dlv_1');

    fireEvent.click(screen.getByRole('button', { name: 'Send test event' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/This app has no webhook URL\. Set a webhook URL/);

    hasWebhookUrl = true;
    fireEvent.click(screen.getByRole('button', { name: 'Send test event' }));
    await screen.findByTestId('delivery-dlv_test');
    expect(screen.getAllByRole('row')[1]?.getAttribute('data-testid')).toBe('delivery-dlv_test');
    expect(calls.filter((call) => call.operationName === 'SendTestWebhook').at(-1)?.variables).toEqual({ appId: 'app_1' });
  });
});
