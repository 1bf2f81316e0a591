import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedWebhookError, WEBHOOK_EVENT_NAMES, parseWebhookEvent, webhookEventSchema, type WebhookEvent } from '../src/server/index.js';

// The SDK's WebhookEvent type and parseWebhookEvent, held against the event catalogue Plaza publishes
// (the same schemas from @plaza/shared that the server serves at /webhooks/schemas/<event>.json).

const ajv = addFormats.default(new Ajv2020({ strict: true }));
const validators = new Map(WEBHOOK_EVENT_NAMES.map((event) => [event as string, ajv.compile(webhookEventSchema(event))]));
const schemaAccepts = (payload: object) => validators.get(String((payload as { event?: unknown }).event))?.(payload) === true;
const sdkAccepts = (payload: unknown) => {
  try {
    parseWebhookEvent(JSON.stringify(payload));
    return true;
  } catch (error) {
    if (error instanceof MalformedWebhookError) return false;
    throw error;
  }
};

const crockford = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHJKMNPQRSTVWXYZ'), minLength: length, maxLength: length });
/** Payloads the contract allows, as Plaza sends them. */
const contractPayload = fc
  .record({
    event: fc.constantFrom(...WEBHOOK_EVENT_NAMES),
    app_id: crockford(26).map((id) => `app_${id}`),
    user_id: fc.string({ minLength: 1, maxLength: 40 }),
    purchase_id: fc.tuple(fc.integer({ min: 1_600_000_000_000, max: 4_000_000_000_000 }), crockford(6)).map(([ms, suffix]) => `APP-${ms}-${suffix}`),
    amount_vnd: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    timestamp: fc.date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  })
  .map(({ amount_vnd, ...rest }): WebhookEvent => {
    const amount = rest.event === 'app.installed' ? 0 : amount_vnd;
    const { event, app_id, user_id, purchase_id, timestamp } = rest;
    return { event, app_id, user_id, purchase_id, amount_vnd: amount, developer_share_vnd: Math.floor((amount * 80) / 100), timestamp };
  });

describe('the SDK against the event catalogue', () => {
  it('has a schema for every event the SDK names, listing exactly the WebhookEvent fields in wire order', () => {
    const fields: Record<keyof WebhookEvent, true> = { event: true, app_id: true, user_id: true, purchase_id: true, amount_vnd: true, developer_share_vnd: true, timestamp: true };
    for (const event of WEBHOOK_EVENT_NAMES) {
      const schema = webhookEventSchema(event) as { required: string[]; properties: Record<string, unknown> };
      expect(schema.required, event).toEqual(Object.keys(fields));
      expect(Object.keys(schema.properties), event).toEqual(Object.keys(fields));
    }
  });

  it('parses every payload the catalogue allows into the same WebhookEvent', () => {
    fc.assert(
      fc.property(contractPayload, (payload) => {
        expect(schemaAccepts(payload)).toBe(true);
        expect(parseWebhookEvent(JSON.stringify(payload))).toEqual(payload);
      }),
      { numRuns: 300 },
    );
  });

  it('never lets through what the catalogue refuses for a field’s type: the schema is at least as strict as the parser', () => {
    const wrongValue = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 8 }), fc.double(), fc.integer(), fc.constant([]), fc.constant({}));
    const field = fc.constantFrom<keyof WebhookEvent>('app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp');
    fc.assert(
      fc.property(contractPayload, field, wrongValue, (payload, name, value) => {
        const changed = { ...payload, [name]: value };
        if (!sdkAccepts(changed)) expect(schemaAccepts(changed)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
