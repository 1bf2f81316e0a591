import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { ApolloProvider } from '@apollo/client/react';
import { MockSubscriptionLink } from '@apollo/client/testing';
import { getMainDefinition } from '@apollo/client/utilities';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall, type Wire } from '../../test-support/graphql-responder';
import type { NotificationFieldsFragment } from '../../gql/graphql';
import { LocaleProvider } from '../../i18n/i18n';
import { NotificationBell } from './NotificationBell';
import { MarkNotificationReadMutation, NotificationsQuery } from './notifications';

const notification = (id: string, message: string, readAt: string | null): Wire<NotificationFieldsFragment> => ({
  __typename: 'Notification',
  id,
  kind: 'REVIEW_DECIDED',
  message,
  appId: 'app_1',
  appName: null,
  reasons: null,
  note: null,
  since: null,
  lastError: null,
  failedDeliveries: null,
  points: null,
  createdAt: '2030-01-01T00:00:00.000Z',
  readAt,
});

let server: FakePlazaServer;

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

/** Queries go over real HTTP to the fake server; the subscription is fed by the test, as graphql-ws would. */
function clientWithLiveFeed() {
  const live = new MockSubscriptionLink();
  const http = new HttpLink({ uri: '/graphql' });
  const link = ApolloLink.split(
    ({ query }) => {
      const definition = getMainDefinition(query);
      return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
    },
    live,
    http,
  );
  return { client: new ApolloClient({ link, cache: new InMemoryCache() }), live };
}

describe('notifications bell', () => {
  it('counts unread notifications and raises the count when one arrives live', async () => {
    server.respondWith(
      graphqlResponder([
        respond(NotificationsQuery, {
          data: {
            notifications: {
              __typename: 'NotificationConnection',
              edges: [
                { __typename: 'NotificationEdge', node: notification('ntf_2', 'Quiz Time was approved', null) },
                { __typename: 'NotificationEdge', node: notification('ntf_1', 'Quiz Time was rejected', '2030-01-01T01:00:00.000Z') },
              ],
            },
          },
        }),
      ]),
    );
    const { client, live } = clientWithLiveFeed();
    render(
      <ApolloProvider client={client}>
        <NotificationBell />
      </ApolloProvider>,
    );

    expect(await screen.findByRole('button', { name: 'Notifications, 1 unread' })).toBeTruthy();

    act(() => live.simulateResult({ result: { data: { notificationAdded: notification('ntf_3', 'Chess Club was approved', null) } } }));

    const bell = await screen.findByRole('button', { name: 'Notifications, 2 unread' });
    expect(screen.getByTestId('unread-count').textContent).toBe('2');
    fireEvent.click(bell);
    expect(bell.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getAllByRole('listitem').map((item) => item.querySelector('a')?.textContent)).toEqual([
      'Chess Club was approved',
      'Quiz Time was approved',
      'Quiz Time was rejected',
    ]);
  });
  it('closes on Escape, on a click outside it and when a notification is chosen, marking that one read', async () => {
    const calls: GraphqlCall[] = [];
    server.respondWith(
      graphqlResponder(
        [
          respond(NotificationsQuery, {
            data: {
              notifications: {
                __typename: 'NotificationConnection',
                edges: [{ __typename: 'NotificationEdge', node: notification('ntf_2', 'Quiz Time was approved', null) }],
              },
            },
          }),
          respond(MarkNotificationReadMutation, ({ id }) => ({
            data: { markNotificationRead: notification(String(id), 'Quiz Time was approved', '2030-01-01T02:00:00.000Z') },
          })),
        ],
        calls,
      ),
    );
    window.history.replaceState(null, '', '/developer');
    const { client } = clientWithLiveFeed();
    render(
      <ApolloProvider client={client}>
        <NotificationBell />
        <button type="button">A button under the popover</button>
      </ApolloProvider>,
    );
    const bell = await screen.findByRole('button', { name: 'Notifications, 1 unread' });
    const panel = document.getElementById(bell.getAttribute('aria-controls')!)!;

    fireEvent.click(bell);
    expect(panel.hidden).toBe(false);
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(panel.hidden).toBe(true);
    expect(bell.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(bell);

    fireEvent.click(bell);
    // A click inside the popover keeps it open; one anywhere else closes it.
    fireEvent.pointerDown(panel);
    expect(panel.hidden).toBe(false);
    fireEvent.pointerDown(screen.getByRole('button', { name: 'A button under the popover' }));
    expect(panel.hidden).toBe(true);

    fireEvent.click(bell);
    fireEvent.click(screen.getByRole('link', { name: 'Quiz Time was approved' }));
    expect(panel.hidden).toBe(true);
    expect(window.location.pathname).toBe('/developer/apps/app_1');
    await screen.findByRole('button', { name: 'Notifications, 0 unread' });
    expect(calls.filter((call) => call.operationName === 'MarkNotificationRead')).toEqual([{ operationName: 'MarkNotificationRead', variables: { id: 'ntf_2' } }]);
  });

  it('says a refund, a review decision and a webhook alert in the reader’s language from their facts, and a kind it does not know as the server wrote it', async () => {
    const facts = (
      id: string,
      kind: string,
      extra: Partial<Pick<NotificationFieldsFragment, 'appName' | 'reasons' | 'note' | 'since' | 'lastError' | 'points'>>,
    ): Wire<NotificationFieldsFragment> => ({
      ...notification(id, `English text of ${kind}`, null),
      kind,
      appName: 'Sổ Tay',
      ...extra,
    });
    server.respondWith(
      graphqlResponder([
        respond(NotificationsQuery, {
          data: {
            notifications: {
              __typename: 'NotificationConnection',
              edges: [
                facts('ntf_5', 'PURCHASE_REFUNDED', { points: 1234, note: 'Charged twice' }),
                facts('ntf_4', 'APP_REJECTED', { reasons: ['INVALID_ICON', 'OTHER'], note: 'The menu overlaps the recipe.' }),
                facts('ntf_3', 'WEBHOOK_DISABLED', { since: '2030-01-02T03:04:00.000Z', lastError: 'HTTP 500' }),
                facts('ntf_2', 'APP_FEATURED', {}),
                // Stored before notifications kept their facts: the server's message.
                facts('ntf_1', 'APP_APPROVED', { appName: null }),
              ].map((node) => ({ __typename: 'NotificationEdge' as const, node })),
            },
          },
        }),
      ]),
    );
    const { client } = clientWithLiveFeed();
    render(
      <ApolloProvider client={client}>
        <LocaleProvider locale="vi">
          <NotificationBell />
        </LocaleProvider>
      </ApolloProvider>,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Thông báo, 5 chưa đọc' }));
    const texts = screen.getAllByRole('link').map((link) => link.textContent);
    // How many points came back, written the reader's way.
    expect(texts.shift()).toBe('Giao dịch mua "Sổ Tay" của bạn đã được hoàn tiền: 1.234 điểm đã trở lại số dư của bạn. Lý do: Charged twice');
    expect(texts[0]).toBe(
      '"Sổ Tay" bị từ chối: Biểu tượng không phải ảnh 512×512 hợp lệ; Lý do khác (xem ghi chú). Ghi chú của người duyệt: The menu overlaps the recipe. Hãy sửa và gửi lại khi bạn sẵn sàng.',
    );
    expect(texts[1]).toMatch(/^Plaza đã ngừng gửi sự kiện webhook cho "Sổ Tay": các lượt gửi thất bại liên tục từ .*02\/01\/2030.*\. Lỗi gần nhất: HTTP 500\./);
    expect(texts.slice(2)).toEqual(['English text of APP_FEATURED', 'English text of APP_APPROVED']);
  });
});
