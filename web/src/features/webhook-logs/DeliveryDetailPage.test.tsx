import { ApolloProvider } from '@apollo/client/react';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { MockSubscriptionLink } from '@apollo/client/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import type { ResultOf } from '@graphql-typed-document-node/core';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import type { DeliveryAttemptFieldsFragment, DeliveryStatus } from '../../gql/graphql';
import { LocaleProvider } from '../../i18n/i18n';
import { DeliveryDetailPage } from './DeliveryDetailPage';
import { WebhookLocalForwardsQuery } from './DeliveryLocalForwards';
import { clientWithLiveFeed, delivery } from './test-deliveries';
import { RedeliverWebhookMutation, WebhookDeliveryQuery } from './webhook-deliveries';

type FakeAttempt = Wire<DeliveryAttemptFieldsFragment>;
type FakeDetail = Wire<NonNullable<ResultOf<typeof WebhookDeliveryQuery>['webhookDelivery']>>;
type FakeLocalForward = Wire<ResultOf<typeof WebhookLocalForwardsQuery>['webhookLocalForwards'][number]>;

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
  payloadKept: true,
  attempts,
});

let server: FakePlazaServer;
let calls: GraphqlCall[];
let live: MockSubscriptionLink;
/** What the server answers for the delivery now: a test changes it before reporting the change live. */
let current: FakeDetail;
/** What plaza listen reported for the delivery (none unless a test says so). */
let forwards: FakeLocalForward[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

beforeEach(() => {
  calls = [];
  current = detail('FAILED', [attempt(1, 'SCHEDULED', null)]);
  forwards = [];
  server.respondWith(
    graphqlResponder(
      [
        respond(WebhookDeliveryQuery, () => ({ data: { webhookDelivery: current } })),
        respond(WebhookLocalForwardsQuery, () => ({ data: { webhookLocalForwards: forwards } })),
        respond(RedeliverWebhookMutation, { data: { redeliverWebhook: detail('SUCCEEDED', [attempt(1, 'SCHEDULED', null), attempt(2, 'MANUAL', 200)]) } }),
      ],
      calls,
    ),
  );
  renderPage('en');
});

function renderPage(locale: 'en' | 'vi') {
  const feed = clientWithLiveFeed();
  live = feed.live;
  render(
    <LocaleProvider locale={locale}>
      <ApolloProvider client={feed.client}>
        <DeliveryDetailPage deliveryId="dlv_1" />
      </ApolloProvider>
    </LocaleProvider>,
  );
}

const localForward = (id: string, statusCode: number | null, error: string | null): FakeLocalForward => ({
  __typename: 'LocalForward',
  id,
  createdAt: '2030-01-01T00:05:00.000Z',
  statusCode,
  durationMs: statusCode ? 42 : 3,
  error,
});

afterEach(() => cleanup());

describe('webhook delivery detail', () => {
  it('shows the headers sent and the body, formatted or byte for byte', async () => {
    const first = await screen.findByTestId('attempt-1');
    // One attempt: every header it sent is listed once, under the attempts.
    const headers = screen.getByRole('region', { name: 'Request headers the same in every attempt' });
    expect(within(headers).getByText('X-Platform-Signature')).toBeTruthy();
    expect(within(headers).getByText('sha256=abc123')).toBeTruthy();
    expect(within(first).getByText('connection refused')).toBeTruthy();

    const body = screen.getByTestId('delivery-payload');
    expect(body.textContent).toBe(JSON.stringify(JSON.parse(PAYLOAD), null, 2));

    const rawToggle = screen.getByRole('button', { name: 'Raw' });
    fireEvent.click(rawToggle);
    expect(rawToggle.getAttribute('aria-pressed')).toBe('true');
    expect(body.textContent).toBe(PAYLOAD);
    // The local forwards load beside the attempts; let them arrive before the page is torn down.
    await screen.findByText('No local forwards: plaza listen has not forwarded this delivery.');
  });

  it('redelivers and shows the new MANUAL attempt', async () => {
    await screen.findByTestId('attempt-1');
    expect(screen.getByTestId('delivery-status').textContent).toMatch(/Failed/);

    fireEvent.click(screen.getByRole('button', { name: 'Redeliver' }));

    const manual = await screen.findByTestId('attempt-2');
    // On top, marked new, open, with the attempt before it folded; its own headers only (the attempt number differs).
    expect(within(manual).getByRole('heading', { name: 'Attempt 2 (manual) New' })).toBeTruthy();
    expect(within(manual).getByText('200')).toBeTruthy();
    expect(screen.getAllByTestId(/^attempt-\d+$/).map((item) => item.dataset.testid)).toEqual(['attempt-2', 'attempt-1']);
    expect(manual.querySelector('details')!.open).toBe(true);
    expect(screen.getByTestId('attempt-1').querySelector('details')!.open).toBe(false);
    expect(within(manual).getByText('X-Platform-Attempt')).toBeTruthy();
    expect(within(screen.getByRole('region', { name: 'Request headers the same in every attempt' })).getByText('X-Platform-Signature')).toBeTruthy();
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
  it('says the body is no longer kept instead of showing an empty one, and offers no redelivery, in English and Vietnamese', async () => {
    // The page of beforeEach first finishes loading, so tearing it down cuts no request.
    await screen.findByText('No local forwards: plaza listen has not forwarded this delivery.');
    cleanup();
    // As the server answers once WEBHOOK_BODY_RETENTION removed the body: payload "" and payloadKept false.
    current = { ...detail('SUCCEEDED', [attempt(1, 'SCHEDULED', 200)]), payload: '', payloadKept: false };
    renderPage('en');

    expect((await screen.findByTestId('delivery-payload-not-kept')).textContent).toBe('The body is no longer kept (older than the body retention).');
    expect(screen.queryByTestId('delivery-payload')).toBeNull();
    const redeliver = screen.getByRole('button', { name: 'Redeliver' }) as HTMLButtonElement;
    expect(redeliver.disabled).toBe(true);
    expect(document.getElementById(redeliver.getAttribute('aria-describedby')!)?.textContent).toBe('It cannot be redelivered: Plaza no longer has the body to send.');
    fireEvent.click(redeliver);
    expect(calls.filter((call) => call.operationName === 'RedeliverWebhook')).toEqual([]);
    // The attempts made while it was kept are still shown.
    expect(within(screen.getByTestId('attempt-1')).getByText('200')).toBeTruthy();
    await screen.findByText('No local forwards: plaza listen has not forwarded this delivery.');

    cleanup();
    renderPage('vi');
    expect((await screen.findByTestId('delivery-payload-not-kept')).textContent).toBe('Nội dung không còn được lưu (đã quá thời hạn lưu nội dung).');
    expect((screen.getByRole('button', { name: 'Gửi lại' }) as HTMLButtonElement).disabled).toBe(true);
    await screen.findByText('Chưa có chuyển tiếp cục bộ: plaza listen chưa chuyển tiếp lần gửi này.');
  });

  it('lists what plaza listen got from the local receiver apart from the real attempts, in English and Vietnamese', async () => {
    const local = await screen.findByTestId('local-forwards');
    expect(within(local).getByRole('heading', { name: 'Local forwards' })).toBeTruthy();
    await within(local).findByText('No local forwards: plaza listen has not forwarded this delivery.');

    cleanup();
    forwards = [localForward('lfw_1', null, 'connect ECONNREFUSED 127.0.0.1:3000'), localForward('lfw_2', 200, null)];
    renderPage('en');
    const section = await screen.findByTestId('local-forwards');
    const refused = await within(section).findByTestId('local-forward-lfw_1');
    expect([...refused.querySelectorAll('td')].slice(1).map((cell) => cell.textContent)).toEqual(['No answer', '3 ms', 'connect ECONNREFUSED 127.0.0.1:3000']);
    const answered = within(section).getByTestId('local-forward-lfw_2');
    expect([...answered.querySelectorAll('td')].slice(1).map((cell) => cell.textContent)).toEqual(['200', '42 ms', '']);
    expect(
      within(section)
        .getAllByRole('columnheader')
        .map((header) => header.textContent),
    ).toEqual(['Forwarded', 'Local status', 'Duration', 'Error']);
    // The real attempts stay as they were: one failed attempt, and no local answer counted among them.
    const attempts = screen.getByRole('region', { name: 'Attempts' });
    expect(within(attempts).queryByTestId(/^local-forward-/)).toBeNull();
    expect(attempts.contains(section)).toBe(false);
    expect(screen.getAllByTestId(/^attempt-\d+$/)).toHaveLength(1);
    expect(within(screen.getByTestId('attempt-1')).queryByText('200')).toBeNull();
    expect(screen.getByTestId('delivery-status').textContent).toMatch(/Failed/);
    expect(calls.filter((call) => call.operationName === 'WebhookLocalForwards').at(-1)).toEqual({ operationName: 'WebhookLocalForwards', variables: { deliveryId: 'dlv_1' } });

    cleanup();
    renderPage('vi');
    const vietnamese = await screen.findByTestId('local-forwards');
    expect(within(vietnamese).getByRole('heading', { name: 'Chuyển tiếp cục bộ' })).toBeTruthy();
    const refusedVi = await within(vietnamese).findByTestId('local-forward-lfw_1');
    expect(refusedVi.querySelectorAll('td')[1]!.textContent).toBe('Không có phản hồi');
  });
});
