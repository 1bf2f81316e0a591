import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { MockSubscriptionLink } from '@apollo/client/testing';
import { getMainDefinition } from '@apollo/client/utilities';

export const delivery = (id: string, status: string, overrides: Record<string, unknown> = {}) => ({
  __typename: 'WebhookDelivery',
  id,
  appId: 'app_1',
  event: 'APP_PURCHASED',
  eventName: 'app.purchased',
  purchaseId: `pur_${id}`,
  status,
  attemptCount: 1,
  nextAttemptAt: null,
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
  ...overrides,
});

export const deliveryPage = (nodes: ReturnType<typeof delivery>[], endCursor: string | null = null) => ({
  data: {
    webhookDeliveries: {
      __typename: 'WebhookDeliveryConnection',
      edges: nodes.map((node) => ({ __typename: 'WebhookDeliveryEdge', cursor: `c_${node.id}`, node })),
      pageInfo: { __typename: 'PageInfo', hasNextPage: endCursor !== null, endCursor },
    },
  },
});

/** Queries go over real HTTP to the fake server; subscriptions are fed by the test, as graphql-ws would. */
export function clientWithLiveFeed() {
  const live = new MockSubscriptionLink();
  const http = new HttpLink({ uri: '/graphql' });
  const link = ApolloLink.split(({ query }) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  }, live, http);
  return { client: new ApolloClient({ link, cache: new InMemoryCache() }), live };
}
