import { describe, expect, it } from 'vitest';
import { routeFor, webhookDeliveryPath } from '../../routes';

describe('webhook log routes', () => {
  it('keeps the filters of the list in its query string', () => {
    expect(routeFor({ pathname: '/developer/webhooks', search: '?appId=app_1' })).toEqual({ kind: 'webhook-logs', query: '?appId=app_1' });
    expect(routeFor({ pathname: '/developer/webhooks/', search: '' })).toEqual({ kind: 'webhook-logs', query: '' });
  });

  it('opens one delivery by its id', () => {
    expect(routeFor({ pathname: webhookDeliveryPath('dlv 1'), search: '' })).toEqual({ kind: 'webhook-delivery', deliveryId: 'dlv 1' });
    expect(routeFor({ pathname: '/developer/webhooks/%E0', search: '' })).toEqual({ kind: 'not-found' });
  });
});
