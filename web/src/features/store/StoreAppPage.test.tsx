import { ApolloProvider, useQuery } from '@apollo/client/react';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../apollo-client';
import { LocaleProvider } from '../../i18n/i18n';
import { browseFrom, startFakePlazaServer, type FakePlazaServer } from '../../test-support/fake-plaza-server';
import { graphqlResponder, respond, type GraphqlCall } from '../../test-support/graphql-responder';
import { settled } from '../../test-support/settled';
import { LibraryQuery } from '../library/library';
import { CurrentViewerQuery } from '../session/current-viewer';
import { InstallAppMutation, MyStorePurchasesQuery, PurchaseAppMutation, StoreAppPage, StoreAppQuery } from './StoreAppPage';

let server: FakePlazaServer;
let calls: GraphqlCall[];

beforeAll(async () => {
  server = await startFakePlazaServer();
  browseFrom(server.origin);
});

afterAll(() => server.close());

afterEach(() => cleanup());

const PRICE = 50;

/** A fake Plaza holding the buyer's balance and library, which a purchase changes as the real one does. */
function renderStoreApp(startingPoints: number, locale: 'en' | 'vi' = 'en', { boughtBefore = false } = {}) {
  let points = startingPoints;
  let owned = false;
  // Bought, then uninstalled: the purchase stays, the app is not in the library.
  let bought = boughtBefore;
  calls = [];
  server.respondWith(
    graphqlResponder(
      [
        // A function, so the listing may carry fields (developerName) that this page's query gains later.
        respond(StoreAppQuery, () => ({
          data: {
            app: {
              __typename: 'App',
              id: 'app_1',
              name: 'Quiz Time',
              iconUrl: 'https://quiz.example.com/icon.png',
              shortDescription: 'Daily trivia',
              category: 'games',
              developerName: 'Quiz Studio',
              pricing: 'PAID',
              pricePoints: PRICE,
              priceVnd: PRICE * 1000,
              longDescription: null,
              screenshotUrls: [],
              supportUrl: null,
              privacyPolicyUrl: null,
              receives: { __typename: 'AppReceives', sessionFields: ['token', 'userId', 'locale', 'theme'], webhookEvents: ['APP_PURCHASED'] },
            },
          },
        })),
        respond(CurrentViewerQuery, () => ({
          data: { me: { __typename: 'Viewer', id: 'u-1', email: 'buyer@example.com', roles: ['USER'], points, locale, theme: 'light' } },
        })),
        respond(LibraryQuery, () => ({
          data: {
            myLibrary: owned
              ? [
                  {
                    __typename: 'Installation',
                    id: 'ins_1',
                    appId: 'app_1',
                    app: { __typename: 'App', id: 'app_1', name: 'Quiz Time', iconUrl: 'https://quiz.example.com/icon.png', shortDescription: 'Daily trivia' },
                  },
                ]
              : [],
          },
        })),
        respond(MyStorePurchasesQuery, () => ({
          data: {
            myPurchases: {
              __typename: 'PurchaseConnection',
              edges: bought
                ? [{ __typename: 'PurchaseEdge', node: { __typename: 'Purchase', purchaseId: 'APP-1-ABCDEF', appId: 'app_1', kind: 'PURCHASE', status: 'COMPLETED' } }]
                : [],
            },
          },
        })),
        respond(InstallAppMutation, () => {
          owned = true;
          return { data: { installApp: { __typename: 'Installation', id: 'ins_2', appId: 'app_1' } } };
        }),
        respond(PurchaseAppMutation, () => {
          points -= PRICE;
          owned = true;
          bought = true;
          return { data: { purchaseApp: { __typename: 'Purchase', purchaseId: 'APP-1-ABCDEF', appId: 'app_1', pricePoints: PRICE } } };
        }),
      ],
      calls,
    ),
  );
  render(
    <LocaleProvider locale={locale}>
      <ApolloProvider client={createApolloClient()}>
        <WithBalance />
      </ApolloProvider>
    </LocaleProvider>,
  );
}

/** As the shell does: the balance comes from the viewer, refetched after a purchase. */
function WithBalance() {
  const viewer = useQuery(CurrentViewerQuery);
  if (!viewer.data?.me) return null;
  return <StoreAppPage appId="app_1" points={viewer.data.me.points} />;
}

const purchases = () => calls.filter((call) => call.operationName === 'PurchaseApp');

describe('buying an app in the store', () => {
  it('asks to confirm the price and the balance first, then says Purchased and links My Library without the price', async () => {
    renderStoreApp(120);
    fireEvent.click(await screen.findByRole('button', { name: 'Buy for 50 points' }));

    const confirmation = screen.getByRole('group');
    expect(confirmation.textContent).toContain('Buy Quiz Time for 50 points? Your balance is 120 points; 70 points will remain.');
    const confirm = within(confirmation).getByRole('button', { name: 'Confirm: pay 50 points' });
    expect(document.activeElement).toBe(confirm);
    expect(purchases()).toHaveLength(0);

    fireEvent.click(confirm);
    const result = await screen.findByRole('status');
    expect(result.textContent).toContain('Purchased Quiz Time for 50 points. Your balance is now 70 points.');
    expect(result.textContent).not.toContain('Installed');
    expect(within(result).getByRole('link', { name: 'Go to My Library' }).getAttribute('href')).toBe('/library');
    expect(within(result).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe('/apps/app_1/open');
    expect(screen.queryByText('50 points')).toBeNull();
    expect(screen.getByText('In your library')).toBeTruthy();
    expect(purchases()).toEqual([{ operationName: 'PurchaseApp', variables: { appId: 'app_1' } }]);
  });

  it('buys nothing when the buyer cancels', async () => {
    renderStoreApp(120);
    fireEvent.click(await screen.findByRole('button', { name: 'Buy for 50 points' }));
    fireEvent.click(within(screen.getByRole('group')).getByRole('button', { name: 'Cancel' }));

    await settled(server, () => screen.getByRole('button', { name: 'Buy for 50 points' }));
    expect(screen.queryByRole('group')).toBeNull();
    expect(purchases()).toHaveLength(0);
  });

  it('says how many points are missing and offers no way to pay when the balance is short', async () => {
    renderStoreApp(20);
    fireEvent.click(await screen.findByRole('button', { name: 'Buy for 50 points' }));

    const confirmation = screen.getByRole('group');
    expect(confirmation.textContent).toContain('Quiz Time costs 50 points and your balance is 20 points: you need 30 more points to buy it.');
    expect(within(confirmation).queryByRole('button', { name: /Confirm/ })).toBeNull();
    await settled(server, () => within(confirmation).getByRole('button', { name: 'Cancel' }));
    expect(purchases()).toHaveLength(0);
  });

  it('confirms and reports the purchase in Vietnamese', async () => {
    renderStoreApp(120, 'vi');
    fireEvent.click(await screen.findByRole('button', { name: 'Mua với 50 điểm' }));
    expect(screen.getByRole('group').textContent).toContain('Mua Quiz Time với 50 điểm? Số dư của bạn là 120 điểm; sẽ còn lại 70 điểm.');
    fireEvent.click(screen.getByRole('button', { name: 'Xác nhận: trả 50 điểm' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Đã mua Quiz Time với 50 điểm. Số dư hiện tại của bạn là 70 điểm.'));
    expect(within(screen.getByRole('status')).getByRole('link', { name: 'Đến Thư viện của tôi' })).toBeTruthy();
  });
  it('puts an app bought before and since uninstalled back at no charge, without asking to pay again', async () => {
    renderStoreApp(120, 'en', { boughtBefore: true });
    const again = await screen.findByRole('button', { name: 'Install again, no charge' });
    expect(screen.getByText('You bought this app before: it goes back in your library at no charge.')).toBeTruthy();
    expect(screen.getByText('Bought')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Buy/ })).toBeNull();

    fireEvent.click(again);
    const result = await screen.findByRole('status');
    expect(result.textContent).toContain('Installed. Find it in My Library.');
    expect(within(result).getByRole('link', { name: 'Go to My Library' })).toBeTruthy();
    expect(purchases()).toHaveLength(0);
    expect(calls.filter((call) => call.operationName === 'InstallApp')).toEqual([{ operationName: 'InstallApp', variables: { appId: 'app_1' } }]);
  });
});
