import type { WebhookEvent, WEBHOOK_EVENT_NAMES } from './webhook-payload.js';

/** A known event's wire name. */
export type KnownWebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

/** Where Plaza serves the catalogue: the index here, each event's schema at `<path><event>.json`. */
export const WEBHOOK_SCHEMAS_PATH = '/webhooks/schemas/';

/** The path of one event's JSON Schema, e.g. `/webhooks/schemas/app.purchased.json`. */
export const webhookSchemaPath = (event: KnownWebhookEventName): string => `${WEBHOOK_SCHEMAS_PATH}${event}.json`;

/** The seven payload fields in wire order; `satisfies` keeps this list and the WebhookEvent type one and the same. */
export const WEBHOOK_PAYLOAD_FIELDS = [
  'event',
  'app_id',
  'user_id',
  'purchase_id',
  'amount_vnd',
  'developer_share_vnd',
  'timestamp',
] as const satisfies readonly (keyof WebhookEvent)[];
// Fails to compile if WebhookEvent gains a field the list (and so every schema) lacks.
const everyFieldListed: Record<Exclude<keyof WebhookEvent, (typeof WEBHOOK_PAYLOAD_FIELDS)[number]>, never> = {};
void everyFieldListed;

type JsonSchema = { readonly [keyword: string]: unknown };

interface EventEntry {
  description: string;
  purchaseId: string;
  /** Real events of this type carry no money (a test imitating one carries what a sale would). */
  free?: true;
}

/** Plaza refuses to charge more than 2^31 - 1 VND for one purchase, so every amount fits a 32-bit integer. */
const AMOUNT = { type: 'integer', minimum: 0, maximum: 2_147_483_647 };

/** Test events (sendTestWebhook, plaza trigger) have purchase ids `APP-<ms>-TEST..` that name no purchase; real ids never start their suffix with it. */
export const TEST_PURCHASE_SUFFIX = 'TEST';
const TEST_PURCHASE_ID = `^APP-[0-9]+-${TEST_PURCHASE_SUFFIX}`;
const FREE_UNLESS_TEST = {
  if: { properties: { purchase_id: { type: 'string', pattern: TEST_PURCHASE_ID } } },
  else: { properties: { amount_vnd: { const: 0 }, developer_share_vnd: { const: 0 } } },
};

/** What each event means and what its amounts and purchase_id are, so a receiver knows which (event, purchase_id) pairs name one happening. */
const EVENTS: Record<KnownWebhookEventName, EventEntry> = {
  'app.purchased': {
    description: 'A user paid for the app. The revenue split is already recorded; unlock premium features for user_id.',
    purchaseId: 'The new purchase; a later app.refunded of this purchase carries the same purchase_id.',
  },
  'app.installed': {
    description: 'A user installed the app: a free app, or a bought app installed again (a reinstall, which charges nothing).',
    purchaseId: 'This install’s own id: every install, a reinstall included, is an acquisition of its own.',
    free: true,
  },
  'app.uninstalled': {
    description: 'A user removed the app from their library. A bought app stays bought: the user may install it again without paying.',
    purchaseId: 'The purchase_id of the install or purchase this uninstall ends.',
  },
  'app.refunded': {
    description: 'A purchase was refunded: the points went back to the user, the revenue share is reversed, and access ended. Lock premium features.',
    purchaseId: 'The refunded purchase’s purchase_id (the one its app.purchased carried).',
  },
  'app.test': {
    description: 'A test event the developer sent from the portal (sendTestWebhook); not a business event.',
    purchaseId: 'A fresh id shaped like a purchase_id; it names no purchase.',
  },
};

/**
 * The JSON Schema (draft 2020-12) of one event's body. `$id` is the path Plaza serves it at, made
 * absolute when `origin` (e.g. `https://plaza.example`) is given.
 */
export function webhookEventSchema(event: KnownWebhookEventName, origin = ''): JsonSchema {
  const { description, purchaseId, free } = EVENTS[event];
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `${origin}${webhookSchemaPath(event)}`,
    title: event,
    description: `${description} The body of the webhook request, exactly these seven fields; X-Platform-Signature and webhook-signature sign its raw bytes.`,
    type: 'object',
    required: [...WEBHOOK_PAYLOAD_FIELDS],
    additionalProperties: false,
    properties: {
      event: { description: 'The event type', const: event },
      app_id: { description: 'The app: app_ followed by a ULID', type: 'string', pattern: '^app_[0-9A-HJKMNP-TV-Z]{26}$' },
      user_id: { description: 'The user, as the platform’s identity provider names them', type: 'string', minLength: 1 },
      purchase_id: {
        description: `APP-<Unix time in ms>-<6 Crockford base32 characters>. ${purchaseId} Deduplicate on (event, purchase_id).`,
        type: 'string',
        pattern: '^APP-[0-9]{13,}-[0-9A-HJKMNP-TV-Z]{6}$',
      },
      amount_vnd: { description: 'Amount paid, in VND (price in points x the point value); 0 for free installs and reinstalls', ...AMOUNT },
      developer_share_vnd: { description: 'The developer’s share of amount_vnd in VND: floor(amount_vnd x 80 / 100)', ...AMOUNT },
      timestamp: {
        description: 'When the event happened: ISO 8601 UTC with milliseconds',
        type: 'string',
        format: 'date-time',
        pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
      },
    },
    ...(free ? FREE_UNLESS_TEST : {}),
  };
}

/** The catalogue's index: every event with a description and the URL of its schema. */
export function webhookSchemaIndex(origin = ''): { events: { event: KnownWebhookEventName; description: string; schema: string }[] } {
  return {
    events: (Object.keys(EVENTS) as KnownWebhookEventName[]).map((event) => ({ event, description: EVENTS[event].description, schema: `${origin}${webhookSchemaPath(event)}` })),
  };
}
