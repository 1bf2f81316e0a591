import { ApolloProvider } from '@apollo/client/react';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { MockSubscriptionLink } from '@apollo/client/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import type { DeliveryAttemptFieldsFragment, DeliveryStatus } from '../../gql/graphql';
import { DeliveryDetailPage } from './DeliveryDetailPage';
import { clientWithLiveFeed, delivery } from './test-deliveries';
import { RedeliverWebhookMutation, WebhookDeliveryQuery } from './webhook-deliveries';

type FakeAttempt = Wire<DeliveryAttemptFieldsFragment>;
type FakeDetail = Wire<NonNullable<ResultOf<typeof WebhookDeliveryQuery>['webhookDelivery']>>;

// Key order and spacing as the server signed them; the raw view must show exactly these bytes.
const PAYLOAD = '{"event":"app.purchased","app_id":"app_1","amount_vnd":50000}';

const attempt = (number: number, trigger: string, statusCode: number | null): FakeAttempt => ({
  __typename: 'DeliveryAttempt',
  number,
  trigger,
  startedAt: '2030-01-01T00:00:00.000Z',
  durationMs: 120,
  statusCode,
  error: statusCode === 200 ? null : 'connection refused',
  responseBodyExcerpt: statusCode === 200 ? 'ok' : null,
  url: 'https://hooks.example.com/plaza',
  finished: true,
  finishedAt: '2030-01-01T00:00:00.120Z',
  outcome: statusCode === 200 ? 'SUCCEEDED' : 'FAILED',
  requestHeaders: [
    { __typename: 'WebhookHeader', name: 'X-Platform-Signature', value: 'sha256=abc123' },
    { __typename: 'WebhookHeader', name: 'X-Platform-Attempt', value: String(number) },
  ],
});

/** An attempt sent and not yet answered, as the server reports it while the receiver is silent. */
const inFlight = (number: number): FakeAttempt => ({
  ...attempt(number, 'SCHEDULED', null),
  durationMs: 25,
  error: null,
  finished: false,
  finishedAt: null,
  outcome: 'IN_FLIGHT',
});

const detail = (status: DeliveryStatus, attempts: FakeAttempt[]): FakeDetail => ({
  ...delivery('dlv_1', status, { attemptCount: attempts.length }),
  heldReason: null,
  payload: PAYLOAD,
  attempts,
});

let server: FakePlazaServer;
let calls: GraphqlCall[];
let live: MockSubscriptionLink;
/** What the server answers for the delivery now: a test changes it before reporting the change live. */
let current: FakeDetail;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

beforeEach(() => {
  calls = [];
  current = detail('FAILED', [attempt(1, 'SCHEDULED', null)]);
  server.respondWith(
    graphqlResponder(
      [
        respond(WebhookDeliveryQuery, () => ({ data: { webhookDelivery: current } })),
        respond(RedeliverWebhookMutation, { data: { redeliverWebhook: detail('SUCCEEDED', [attempt(1, 'SCHEDULED', null), attempt(2, 'MANUAL', 200)]) } }),
      ],
      calls,
    ),
  );
  const feed = clientWithLiveFeed();
  live = feed.live;
  render(
    <ApolloProvider client={feed.client}>
      <DeliveryDetailPage deliveryId="dlv_1" />
    </ApolloProvider>,
  );
});

afterEach(() => cleanup());

describe('webhook delivery detail', () => {
  it('shows the headers sent and the body, formatted or byte for byte', async () => {
    const first = await screen.findByTestId('attempt-1');
    expect(within(first).getByText('X-Platform-Signature')).toBeTruthy();
    expect(within(first).getByText('sha256=abc123')).toBeTruthy();
    expect(within(first).getByText('connection refused')).toBeTruthy();

    const body = screen.getByTestId('delivery-payload');
    expect(body.textContent).toBe(JSON.stringify(JSON.parse(PAYLOAD), null, 2));

    const rawToggle = screen.getByRole('button', { name: 'Raw' });
    fireEvent.click(rawToggle);
    expect(rawToggle.getAttribute('aria-pressed')).toBe('true');
    expect(body.textContent).toBe(PAYLOAD);
  });

  it('redelivers and shows the new MANUAL attempt', async () => {
    await screen.findByTestId('attempt-1');
    expect(screen.getByTestId('delivery-status').textContent).toMatch(/Failed/);

    fireEvent.click(screen.getByRole('button', { name: 'Redeliver' }));

    const manual = await screen.findByTestId('attempt-2');
    expect(within(manual).getByRole('heading', { name: 'Attempt 2 (manual)' })).toBeTruthy();
    expect(within(manual).getByText('200')).toBeTruthy();
    expect(screen.getByTestId('delivery-status').textContent).toMatch(/Succeeded/);
    expect(calls.filter((call) => call.operationName === 'RedeliverWebhook')).toEqual([{ operationName: 'RedeliverWebhook', variables: { deliveryId: 'dlv_1' } }]);
  });

  it('shows a scheduled retry as soon as it is reported live, fetching its attempts then and only then', async () => {
    await screen.findByTestId('attempt-1');

    // Another delivery of the app changes: nothing to fetch for this page.
    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_9', 'SUCCEEDED') } } }));
    current = { ...detail('RETRYING', [attempt(1, 'SCHEDULED', null), attempt(2, 'SCHEDULED', 503)]), nextAttemptAt: '2030-01-01T00:10:00.000Z' };
    // The feed carries the change without attempts; the page fetches its delivery again for them.
    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_1', 'RETRYING', { attemptCount: 2, nextAttemptAt: '2030-01-01T00:10:00.000Z' }) } } }));

    const retry = await screen.findByTestId('attempt-2');
    expect(within(retry).getByText('503')).toBeTruthy();
    expect(screen.getByTestId('delivery-status').textContent).toMatch(/Retrying/);
    expect(calls.filter((call) => call.operationName === 'WebhookDelivery')).toHaveLength(2);
  });

  it('tells an attempt still in flight from one that ended without a response', async () => {
    await screen.findByTestId('attempt-1');
    expect(screen.getByTestId('attempt-1-outcome').textContent).toBe('Failed');

    current = detail('RETRYING', [attempt(1, 'SCHEDULED', null), inFlight(2)]);
    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_1', 'RETRYING', { attemptCount: 2 }) } } }));

    const sending = await screen.findByTestId('attempt-2');
    expect(screen.getByTestId('attempt-2-outcome').textContent).toBe('In progress');
    expect(within(sending).getByText('Waiting for a response')).toBeTruthy();
    expect(within(sending).getByText('in flight, 25 ms so far')).toBeTruthy();
    expect(within(sending).queryByText('No response')).toBeNull();
    expect(within(sending).queryByText('Finished')).toBeNull();

    current = detail('RETRYING', [attempt(1, 'SCHEDULED', null), { ...attempt(2, 'SCHEDULED', null), error: 'timeout: no complete response within 10000 ms' }]);
    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_1', 'RETRYING', { attemptCount: 2, updatedAt: '2030-01-01T00:00:11.000Z' }) } } }));

    await screen.findByText('timeout: no complete response within 10000 ms');
    const ended = screen.getByTestId('attempt-2');
    expect(screen.getByTestId('attempt-2-outcome').textContent).toBe('Failed');
    expect(within(ended).getByText('No response')).toBeTruthy();
    expect(within(ended).getByText('Finished')).toBeTruthy();
  });

  it('says why a delivery held while the webhook was disabled was not sent', async () => {
    await screen.findByTestId('attempt-1');
    expect(screen.queryByRole('note')).toBeNull();

    // As the server records an event of an app whose webhook is disabled (HELD_WHILE_DISABLED): FAILED, never attempted.
    const held = 'Not sent: the app’s webhook was disabled after sustained failures. Enable it, then recover failed deliveries to send this one.';
    current = { ...detail('FAILED', []), heldReason: held };
    act(() => live.simulateResult({ result: { data: { webhookDeliveryUpdated: delivery('dlv_1', 'FAILED', { attemptCount: 0, updatedAt: '2030-01-01T00:00:05.000Z' }) } } }));

    expect((await screen.findByRole('note')).textContent).toBe(held);
  });
});
