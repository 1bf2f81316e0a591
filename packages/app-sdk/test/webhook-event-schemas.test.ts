import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MalformedWebhookError, UnknownWebhookEventError, WEBHOOK_EVENT_NAMES, parseWebhookEvent, webhookEventSchema, type WebhookEvent } from '../src/server/index.js';

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

  it('accepts exactly what the catalogue accepts: a changed, missing or extra field, or another event, is judged as the schema judges it', () => {
    const wrongValue = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.string({ maxLength: 8 }),
      fc.double(),
      fc.integer(),
      fc.integer({ min: 0, max: 2 ** 31 }),
      fc.constant([]),
      fc.constant({}),
      fc.constantFrom(...WEBHOOK_EVENT_NAMES),
      fc.constant('APP-1700000000000-TEST01'),
      fc.constant('2026-02-30T10:00:00.000Z'),
    );
    const field = fc.constantFrom<string>('event', 'app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp', 'extra');
    const change = fc.oneof(
      fc.tuple(field, wrongValue).map(([name, value]) => (payload: object) => ({ ...payload, [name]: value })),
      field.map((name) => (payload: object) => Object.fromEntries(Object.entries(payload).filter(([key]) => key !== name))),
    );
    fc.assert(
      fc.property(contractPayload, fc.array(change, { minLength: 1, maxLength: 3 }), (payload, changes) => {
        const changed = changes.reduce<object>((body, apply) => apply(body), payload);
        const event = (changed as { event?: unknown }).event;
        // An event the catalogue does not list is not malformed: it is a later Plaza's, and handled apart.
        if (typeof event === 'string' && event !== '' && !validators.has(event)) {
          expect(() => parseWebhookEvent(JSON.stringify(changed))).toThrow(UnknownWebhookEventError);
          return;
        }
        expect(sdkAccepts(changed)).toBe(schemaAccepts(changed));
      }),
      { numRuns: 2000 },
    );
  });

  it('tells an unknown event apart from a malformed body', () => {
    const body = { event: 'app.bogus', anything: 1 };
    expect(() => parseWebhookEvent(JSON.stringify(body))).toThrow(new UnknownWebhookEventError(body));
    expect(() => parseWebhookEvent(JSON.stringify(body))).toThrow(/^Unknown webhook event "app.bogus": this version of @plaza\/app-sdk knows app.purchased, /);
    expect(() => parseWebhookEvent('{"event": 7}')).toThrow(MalformedWebhookError);
  });
});
