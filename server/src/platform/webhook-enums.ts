import { registerEnumType } from 'type-graphql';

// The webhook enums that more than one feature stores: apps keeps an app's events filter (WebhookEventType[])
// and its webhook's state (apps.webhook_state), webhooks sends by them, marketplace names the events it records.
// Here, below the features, so none of them imports another for a type (apps and webhooks did, both ways).

/** What a webhook event reports. */
export enum WebhookEventType {
  APP_PURCHASED = 'APP_PURCHASED',
  APP_INSTALLED = 'APP_INSTALLED',
  APP_UNINSTALLED = 'APP_UNINSTALLED',
  APP_REFUNDED = 'APP_REFUNDED',
  APP_TEST = 'APP_TEST',
}

registerEnumType(WebhookEventType, {
  name: 'WebhookEventType',
  description: 'What a webhook event reports; the wire value (eventName) is in brackets',
  valuesConfig: {
    APP_PURCHASED: { description: 'A user bought the app with points (app.purchased)' },
    APP_INSTALLED: { description: 'A user installed the app: a free one, or a bought one back into their library (app.installed)' },
    APP_UNINSTALLED: { description: 'A user uninstalled the app (app.uninstalled)' },
    APP_REFUNDED: { description: 'An admin refunded a purchase of the app (app.refunded)' },
    APP_TEST: { description: 'A test event the developer sent with sendTestWebhook (app.test)' },
  },
});

/** Whether an app's webhook is sent: sustained failure disables it (so a dead receiver is not sent to for ever), its owner enables it again. */
export enum WebhookState {
  ENABLED = 'ENABLED',
  DISABLED = 'DISABLED',
}
registerEnumType(WebhookState, {
  name: 'WebhookState',
  description: 'Whether Plaza sends an app’s webhook events',
  valuesConfig: {
    ENABLED: { description: 'Events are sent as they happen' },
    DISABLED: {
      description:
        'Deliveries failed with no success for WEBHOOK_DISABLE_AFTER: events are still recorded (FAILED, heldReason says why) but not sent until enableWebhook; recoverWebhookDeliveries then sends them',
    },
  },
});
