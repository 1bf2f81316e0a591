/** Event types Plaza sends to an app's Webhook URL, as they appear on the wire. */
export const WEBHOOK_EVENT_NAMES = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded', 'app.test'] as const;

/** A known event type; other strings are allowed so a new platform event does not break older receivers. */
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number] | (string & {});

/** The JSON body of every webhook request: always exactly these seven fields, in this order, for every event. */
export interface WebhookEvent {
  event: WebhookEventName;
  app_id: string;
  user_id: string;
  /**
   * `APP-<digits>-<suffix>`: each purchase and each install (a reinstall included) has its own; an uninstall
   * carries the purchase_id of the install or purchase it ends, a refund that of the refunded purchase.
   */
  purchase_id: string;
  amount_vnd: number;
  /** floor(amount_vnd * 80 / 100). */
  developer_share_vnd: number;
  /** ISO 8601 UTC time of the event. */
  timestamp: string;
}
