import type { ApolloCache } from '@apollo/client';
import type { WebhookDeliveriesQueryVariables, WebhookDeliveryUpdatedSubscription } from '../../gql/graphql';
import { WebhookDeliveriesQuery } from './webhook-deliveries';

type Delivery = WebhookDeliveryUpdatedSubscription['webhookDeliveryUpdated'];

/**
 * Puts a delivery the list does not hold yet in its place, newest first (a new one lands on top).
 * One already listed needs nothing: the cache is normalised by id, so its row already shows the new
 * fields. One older than every loaded row waits for "Load more" when there are more pages.
 */
export function insertDelivery(cache: ApolloCache, variables: WebhookDeliveriesQueryVariables, delivery: Delivery): void {
  cache.updateQuery({ query: WebhookDeliveriesQuery, variables }, (current) => {
    if (!current) return current;
    const { edges, pageInfo } = current.webhookDeliveries;
    if (edges.some((edge) => edge.node.id === delivery.id)) return current;
    const created = Date.parse(delivery.createdAt);
    let position = edges.findIndex((edge) => Date.parse(edge.node.createdAt) < created);
    if (position === -1) {
      if (pageInfo.hasNextPage) return current;
      position = edges.length;
    }
    const edge = { __typename: 'WebhookDeliveryEdge' as const, cursor: '', node: { ...delivery, __typename: 'WebhookDelivery' as const } };
    return { webhookDeliveries: { ...current.webhookDeliveries, edges: [...edges.slice(0, position), edge, ...edges.slice(position)] } };
  });
}
