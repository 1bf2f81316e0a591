import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

const EVENTS = ['app.purchased', 'app.installed', 'app.uninstalled', 'app.refunded', 'app.test'];

let plaza: TestPlaza;
let receiver: WebhookReceiver;

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '200ms' });
  receiver = await WebhookReceiver.start();
});

async function getJson(path: string) {
  const response = await fetch(`${plaza.url}${path}`);
  return { status: response.status, contentType: response.headers.get('content-type'), body: (await response.json()) as any };
}

/** A validator holding every schema of the catalogue, fetched from Plaza as a receiver's build would. */
async function catalogueValidator() {
  const { body: index } = await getJson('/webhooks/schemas/');
  // Strict: a keyword ajv does not know, or a format without a definition, is an error rather than ignored.
  const ajv = addFormats.default(new Ajv2020({ strict: true, allErrors: true }));
  for (const { schema } of index.events) {
    const { body } = await getJson(new URL(schema).pathname);
    ajv.addSchema(body);
  }
  const origin = plaza.services.config.platformOrigin;
  return (payload: { event: string; [field: string]: unknown }) => {
    const validate = ajv.getSchema(`${origin}/webhooks/schemas/${payload.event}.json`);
    if (!validate) throw new Error(`no schema for ${payload.event}`);
    return validate(payload) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}

describe('the webhook event catalogue', () => {
  it('lists one JSON Schema per event at a stable path, each with its absolute $id', async () => {
    const origin = plaza.services.config.platformOrigin;
    const index = await getJson('/webhooks/schemas/');
    expect(index.status).toBe(200);
    expect(index.contentType).toMatch(/^application\/json/);
    expect(index.body.events.map((e: any) => [e.event, e.schema])).toEqual(EVENTS.map((event) => [event, `${origin}/webhooks/schemas/${event}.json`]));
    expect((await getJson('/webhooks/schemas')).body).toEqual(index.body);

    const purchased = await getJson('/webhooks/schemas/app.purchased.json');
    expect(purchased.status).toBe(200);
    expect(purchased.contentType).toMatch(/^application\/schema\+json/);
    expect(purchased.body).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${origin}/webhooks/schemas/app.purchased.json`,
      title: 'app.purchased',
      required: ['event', 'app_id', 'user_id', 'purchase_id', 'amount_vnd', 'developer_share_vnd', 'timestamp'],
      additionalProperties: false,
    });

    const missing = await getJson('/webhooks/schemas/app.deleted.json');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].extensions).toEqual({ code: 'NOT_FOUND' });
    expect(missing.body.errors[0].message).toContain('app.purchased.json');
  });

  it('describes every payload Plaza sends: purchase, install, reinstall, uninstalls, refund and test events all validate', async () => {
    const developer = await plaza.signIn('catalogue-dev@studio.test');
    const reviewer = await plaza.signIn(REVIEWER_EMAIL);
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const buyer = await plaza.signIn('catalogue-buyer@users.test');
    const listed = async (overrides: Record<string, unknown>) => {
      const app = await submitApp(developer, { webhookUrl: receiver.url(), ...overrides });
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
      return app.id as string;
    };
    const paid = await listed({ pricing: 'PAID', pricePoints: 7 });
    const free = await listed({});
    await admin.ok('mutation($userId: ID!) { creditPoints(userId: $userId, points: 7, reason: "catalogue") { points } }', { userId: buyer.userId });

    const { purchaseApp } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>('mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', { appId: paid });
    const uninstall = (appId: string) => buyer.ok('mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }', { appId });
    const install = (appId: string) => buyer.ok('mutation($appId: ID!) { installApp(appId: $appId) { id } }', { appId });
    await uninstall(paid);
    await install(paid);
    await admin.ok('mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId) { status } }', { purchaseId: purchaseApp.purchaseId });
    await install(free);
    await uninstall(free);
    await developer.ok('mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }', { appId: free });
    // Test imitations of the paid app's events carry what a sale would, the install's included.
    for (const event of ['APP_PURCHASED', 'APP_INSTALLED']) {
      await developer.ok('mutation($appId: ID!, $event: WebhookEventType) { sendTestWebhook(appId: $appId, event: $event) { id } }', { appId: paid, event });
    }

    const payloads = (await receiver.waitForRequests(9)).map((request) => JSON.parse(request.rawBody.toString('utf8')));
    expect(payloads.map((p) => p.event).sort()).toEqual([
      'app.installed',
      'app.installed',
      'app.installed',
      'app.purchased',
      'app.purchased',
      'app.refunded',
      'app.test',
      'app.uninstalled',
      'app.uninstalled',
    ]);
    expect(
      payloads
        .filter((p) => p.event === 'app.installed')
        .map((p) => p.amount_vnd)
        .sort(),
    ).toEqual([0, 0, 7 * plaza.services.config.pointValueVnd]);
    const problems = await catalogueValidator();
    for (const payload of payloads) expect(problems(payload), JSON.stringify(payload)).toEqual([]);
  });

  it('is strict enough to catch what the contract forbids', async () => {
    const problems = await catalogueValidator();
    const valid = {
      event: 'app.installed',
      app_id: 'app_01JZ8X4T6B3YQ2N5M7K9P0RSTV',
      user_id: 'usr_42',
      purchase_id: 'APP-1735689600000-7K3M9Q',
      amount_vnd: 0,
      developer_share_vnd: 0,
      timestamp: '2025-01-01T00:00:00.000Z',
    };
    expect(problems(valid)).toEqual([]);
    // The reinstall that once carried what the original purchase cost.
    expect(problems({ ...valid, amount_vnd: 1000, developer_share_vnd: 800 })).toEqual([
      '/amount_vnd must be equal to constant',
      '/developer_share_vnd must be equal to constant',
      '/ must match "else" schema',
    ]);
    // A test imitating an install of a paid app (sendTestWebhook) carries what a sale would.
    expect(problems({ ...valid, purchase_id: 'APP-1735689600000-TEST7K', amount_vnd: 1000, developer_share_vnd: 800 })).toEqual([]);
    expect(problems({ ...valid, note: 'extra' })).toEqual(['/ must NOT have additional properties']);
    expect(problems({ ...valid, purchase_id: 'APP-C508F8' })).toEqual(['/purchase_id must match pattern "^APP-[0-9]{13,}-[0-9A-HJKMNP-TV-Z]{6}$"']);
    const { timestamp: _dropped, ...undated } = valid;
    expect(problems(undated)).toEqual(["/ must have required property 'timestamp'"]);
    expect(problems({ ...valid, event: 'app.purchased', amount_vnd: 1.5, developer_share_vnd: 1 })).toEqual(['/amount_vnd must be integer']);
  });
});
