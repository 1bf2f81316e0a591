import { ApolloProvider } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type FakeOperation, type GraphqlCall } from '../../test-support/graphql-responder';
import { LocaleProvider } from '../../i18n/i18n';
import { SendAppTestEventMutation, SendTestEvent } from './SendTestEvent';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

const wire = (event: string | null | undefined) => (event ? `app.${event.slice(4).toLowerCase()}` : 'app.test');

function renderPanel(hasWebhookUrl = true, answers: FakeOperation[] = [], locale: 'en' | 'vi' = 'en') {
  calls = [];
  server.respondWith(
    graphqlResponder(
      [
        respond(SendAppTestEventMutation, ({ event }) => ({
          data: {
            sendTestWebhook: {
              __typename: 'WebhookDelivery',
              id: `dlv_${calls.filter((call) => call.operationName === 'SendAppTestEvent').length}`,
              eventName: wire(event),
              status: 'PENDING',
            },
          },
        })),
        ...answers,
      ],
      calls,
    ),
  );
  render(
    <ApolloProvider client={createApolloClient()}>
      <LocaleProvider locale={locale}>
        <SendTestEvent appId="app_1" hasWebhookUrl={hasWebhookUrl} />
      </LocaleProvider>
    </ApolloProvider>,
  );
}

describe('Send a test event', () => {
  it('sends app.test by default, and the event picked otherwise, linking to the delivery', async () => {
    renderPanel();
    expect((screen.getByLabelText('Event to send') as HTMLSelectElement).value).toBe('APP_TEST');
    fireEvent.click(screen.getByRole('button', { name: 'Send test event' }));
    expect((await screen.findByRole('status')).textContent).toBe('Sent app.test. Open delivery dlv_1');

    fireEvent.change(screen.getByLabelText('Event to send'), { target: { value: 'APP_PURCHASED' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send test event' }));
    expect((await screen.findByRole('status')).textContent).toBe('Sent app.purchased. Open delivery dlv_2');
    expect(screen.getByRole('link', { name: 'Open delivery dlv_2' }).getAttribute('href')).toBe('/developer/webhooks/dlv_2');
    // The panel also reads each sent delivery's outcome (TestDeliveryOutcome); these are the sends.
    expect(calls.filter((call) => call.operationName === 'SendAppTestEvent').map((call) => call.variables)).toEqual([
      { appId: 'app_1', event: 'APP_TEST' },
      { appId: 'app_1', event: 'APP_PURCHASED' },
    ]);
  });

  it('without a webhook URL, says what to do first and cannot be pressed', async () => {
    renderPanel(false);
    expect(screen.getByText('This app has no webhook URL yet: edit the app to set one, then send a test event.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Send test event' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows the server's refusal", async () => {
    // As WebhookEventsService answers sendTestWebhook for an app without a webhook URL.
    const refusal = { message: 'This app has no webhook URL; set one before sending a test event', extensions: { code: 'BAD_USER_INPUT', field: 'webhookUrl' } } as const;
    renderPanel(true, [respond(SendAppTestEventMutation, { data: null, errors: [refusal] })]);
    fireEvent.click(screen.getByRole('button', { name: 'Send test event' }));
    expect((await screen.findByRole('alert')).textContent).toBe('This app has no webhook URL. Set a webhook URL on the app first.');
  });

  it.each([
    ['en', 'Send test event', 'At most 10 test events a minute per app; try again in 42 s'],
    ['vi', 'Gửi sự kiện thử', 'Quá nhiều yêu cầu; hãy thử lại sau 42 giây.'],
  ] as const)('says in plain words (%s) that the app has had its test events for this minute', async (locale, send, expected) => {
    // As WebhookEventsService refuses an app's 11th test event in a minute.
    const refusal = { message: 'At most 10 test events a minute per app; try again in 42 s', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 42 } } as const;
    renderPanel(true, [respond(SendAppTestEventMutation, { data: null, errors: [refusal] })], locale);
    fireEvent.click(screen.getByRole('button', { name: send }));
    expect((await screen.findByRole('alert')).textContent).toBe(expected);
  });
});
