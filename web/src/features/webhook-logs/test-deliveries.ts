import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { MockSubscriptionLink } from '@apollo/client/testing';
import { getMainDefinition } from '@apollo/client/utilities';
import type { ResultOf } from '@graphql-typed-document-node/core';
import type { DeliveryStatus, WebhookDeliveryFieldsFragment } from '../../gql/graphql';
import type { Reply, Wire } from '../../test-support/wire';
import type { WebhookDeliveriesQuery } from './webhook-deliveries';

/** A delivery as the server sends it in lists, the live feed and the test-event answer (WebhookDeliveryFields). */
export type FakeDelivery = Wire<WebhookDeliveryFieldsFragment>;

export const delivery = (id: string, status: DeliveryStatus, overrides: Partial<FakeDelivery> = {}): FakeDelivery => ({
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
  lastAttempt: null,
  endpointId: 'ep_1',
  endpoint: { __typename: 'WebhookEndpoint', id: 'ep_1', url: 'https://hooks.example.com/plaza', state: 'ENABLED' },
  ...overrides,
});

export const deliveryPage = (nodes: FakeDelivery[], endCursor: string | null = null): Reply<Wire<ResultOf<typeof WebhookDeliveriesQuery>>> => ({
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
