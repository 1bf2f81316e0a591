import { ApolloProvider } from '@apollo/client/react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import type { DeliveryStatus, EnableWebhookMutation, WebhookState } from '../../gql/graphql';
import { WebhookDeliveryStatsQuery } from '../insights/insights-queries';
import { clientWithLiveFeed, delivery, deliveryPage } from './test-deliveries';
import { WebhookDeliveriesQuery, WebhookLogAppsQuery } from './webhook-deliveries';
import { AppWebhookStateQuery, EnableWebhookMutation as EnableWebhook, RecoverWebhookDeliveriesMutation } from './webhook-health';
import { WebhookLogsPage } from './WebhookLogsPage';

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

/** The page's health chart asks for its numbers too: no attempts keeps it quiet here. */
const noDeliveryStats = respond(WebhookDeliveryStatsQuery, ({ window }) => ({
  data: { webhookDeliveryStats: { __typename: 'WebhookDeliveryStats', window, buckets: [], successRate: null, latencyP50Ms: null, latencyP95Ms: null, webhookState: null } },
}));

const app = (webhookState: WebhookState): Wire<EnableWebhookMutation['enableWebhook']> => ({ __typename: 'App', id: 'app_1', webhookState });

describe('webhook state and recovery in Webhook Logs', () => {
  it('shows a disabled webhook plainly, enables it, then recovers failed deliveries with live progress', async () => {
    server.respondWith(
      graphqlResponder(
        [
          respond(WebhookLogAppsQuery, { data: { myApps: [{ __typename: 'App', id: 'app_1', name: 'Quiz Time', iconUrl: 'https://quiz.example/icon.png' }] } }),
          respond(WebhookDeliveriesQuery, deliveryPage([delivery('dlv_1', 'FAILED'), delivery('dlv_2', 'FAILED')])),
          respond(AppWebhookStateQuery, { data: { app: app('DISABLED') } }),
          noDeliveryStats,
          respond(EnableWebhook, { data: { enableWebhook: app('ENABLED') } }),
          respond(RecoverWebhookDeliveriesMutation, ({ since }) => ({
            data: { recoverWebhookDeliveries: { __typename: 'WebhookRecovery', appId: 'app_1', since, deliveriesQueued: 2, deliveriesSkipped: 1 } },
          })),
        ],
        calls,
      ),
    );
    window.history.pushState(null, '', '/developer/webhooks?appId=app_1');
    const { client, live } = clientWithLiveFeed();
    render(
      <ApolloProvider client={client}>
        <WebhookLogsPage query="?appId=app_1" />
      </ApolloProvider>,
    );

    const banner = await screen.findByRole('alert');
    expect(banner.textContent).toContain('Webhook disabled');
    const recover = screen.getByRole('button', { name: 'Recover failed deliveries' }) as HTMLButtonElement;
    fireEvent.change(screen.getByLabelText('Recover failed since…'), { target: { value: '2030-01-01T00:00' } });
    // Nothing is sent while disabled: recovery waits for Enable.
    expect(recover.disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Enable webhook' }));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(calls.find((c) => c.operationName === 'EnableWebhook')?.variables).toEqual({ appId: 'app_1' });
    expect(screen.getByText(/new events are sent again/)).toBeTruthy();

    await waitFor(() => expect(recover.disabled).toBe(false));
    fireEvent.click(recover);
    await screen.findByText(/2 failed deliveries queued/);
    expect(calls.find((c) => c.operationName === 'RecoverWebhookDeliveries')?.variables).toEqual({ appId: 'app_1', since: new Date('2030-01-01T00:00').toISOString() });
    expect(screen.getByText(/Sent again: 0 of 2/)).toBeTruthy();
    // One more failed since then, past the body retention: not queued, and said so.
    expect(screen.getByText(/1 failed deliveries cannot be sent again: their bodies are no longer kept/)).toBeTruthy();

    const update = (id: string, status: DeliveryStatus) => act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery(id, status) } } }));
    update('dlv_1', 'RETRYING');
    update('dlv_2', 'RETRYING');
    update('dlv_1', 'SUCCEEDED');
    await screen.findByText(/Sent again: 1 of 2 \(1 succeeded\)/);
    update('dlv_2', 'FAILED');
    await screen.findByText(/Sent again: 2 of 2 \(1 succeeded\)/);
  });
});
