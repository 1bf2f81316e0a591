import { InMemoryCache } from '@apollo/client';
import { describe, expect, it } from 'vitest';
import { makeFragmentData } from '../../gql';
import type { WebhookDeliveryFieldsFragment } from '../../gql/graphql';
import { writeDeliveryUpdate } from './insert-delivery';
import { WebhookDeliveryFields } from './webhook-deliveries';

const update = (status: 'RETRYING' | 'SUCCEEDED', attemptCount: number, updatedAt: string) =>
  makeFragmentData(
    // As the server sends it: Apollo matches the fragment by __typename, which the generated type leaves out.
    {
      __typename: 'WebhookDelivery',
      id: 'dlv_1',
      appId: 'app_1',
      event: 'APP_PURCHASED',
      eventName: 'app.purchased',
      purchaseId: 'pur_1',
      status,
      attemptCount,
      nextAttemptAt: null,
      createdAt: '2030-01-02T03:04:05.000Z',
      updatedAt,
      lastAttempt: null,
      endpointId: 'ep_1',
      endpoint: { __typename: 'WebhookEndpoint', id: 'ep_1', url: 'https://hooks.example.com/plaza', state: 'ENABLED' },
    } as WebhookDeliveryFieldsFragment,
    WebhookDeliveryFields,
  );

const shown = (cache: InMemoryCache) => cache.readFragment({ fragment: WebhookDeliveryFields, fragmentName: 'WebhookDeliveryFields', id: 'WebhookDelivery:dlv_1' });

describe('a live delivery update', () => {
  it('that arrives after a newer one is dropped: the row keeps SUCCEEDED, not a late RETRYING', () => {
    const cache = new InMemoryCache();
    expect(writeDeliveryUpdate(cache, update('SUCCEEDED', 2, '2030-01-02T03:04:05.200Z'))).toBe(true);
    expect(writeDeliveryUpdate(cache, update('RETRYING', 1, '2030-01-02T03:04:05.100Z'))).toBe(false);
    expect(shown(cache)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
  });

  it('in order is written, each one replacing the last', () => {
    const cache = new InMemoryCache();
    expect(writeDeliveryUpdate(cache, update('RETRYING', 1, '2030-01-02T03:04:05.100Z'))).toBe(true);
    expect(writeDeliveryUpdate(cache, update('SUCCEEDED', 2, '2030-01-02T03:04:05.200Z'))).toBe(true);
    expect(shown(cache)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
  });
});
