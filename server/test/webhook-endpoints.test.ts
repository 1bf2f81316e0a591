import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver, type ReceivedRequest } from './helpers/webhook-receiver.js';
import { ALL_ATTEMPTS, emitEvent, waitForDelivery, waitForEngineIdle } from './helpers/webhooks.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

// Endpoints: several destinations per app, each with its own events, state and deliveries, all signed with the
// app's client secret; the app's Webhook URL is its first endpoint.

const ENDPOINT_FIELDS = 'id appId url description events state rateLimitPerSecond createdAt';
const ENDPOINTS = `query($id: ID!) { app(id: $id) { id webhookUrl webhookEvents webhookState webhookEndpoints { ${ENDPOINT_FIELDS} } } }`;
const CREATE = `mutation($appId: ID!, $input: WebhookEndpointInput!) { createWebhookEndpoint(appId: $appId, input: $input) { ${ENDPOINT_FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { ${ENDPOINT_FIELDS} } }`;
const PAUSE = `mutation($id: ID!) { pauseWebhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`;
const RESUME = `mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { ${ENDPOINT_FIELDS} } }`;
const DELETE = 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }';
const DELIVERY = `query($id: ID!) { webhookDelivery(id: $id) { id appId endpointId endpoint { id url state } status attemptCount heldReason attempts { number trigger statusCode error } } }`;
const LOG = `query($filter: WebhookDeliveryFilter) { webhookDeliveries(filter: $filter, first: 50) { edges { node { id endpointId eventName status } } } }`;
const REDELIVER = 'mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id status attemptCount } }';
const RECOVER =
  'mutation($appId: ID!, $since: DateTime!, $endpointId: ID) { recoverWebhookDeliveries(appId: $appId, since: $since, endpointId: $endpointId) { deliveriesQueued deliveriesSkipped } }';
const SEND_TEST = 'mutation($appId: ID!, $endpointId: ID) { sendTestWebhook(appId: $appId, endpointId: $endpointId) { id endpointId } }';
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';
const ALL_FOUR = ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED'];

interface Endpoint {
  id: string;
  appId: string;
  url: string;
  description: string | null;
  events: string[];
  state: string;
  rateLimitPerSecond: number | null;
}

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let stranger: GraphQLTestClient;
let reviewer: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms,300ms', WEBHOOK_ENDPOINTS_PER_APP: '3', WEBHOOK_DISABLE_AFTER: '1s' });
  [developer, stranger, reviewer] = await Promise.all([plaza.signIn('endpoints-dev@studio.test'), plaza.signIn('endpoints-stranger@studio.test'), plaza.signIn(REVIEWER_EMAIL)]);
});

const endpointsOf = async (client: GraphQLTestClient, appId: string) =>
  (await client.ok<{ app: { webhookEndpoints: Endpoint[] } & Record<string, any> }>(ENDPOINTS, { id: appId })).app;
const create = async (appId: string, input: Record<string, unknown>) => (await developer.ok<{ createWebhookEndpoint: Endpoint }>(CREATE, { appId, input })).createWebhookEndpoint;
const deliveryOf = async (id: string) => (await developer.ok<{ webhookDelivery: any }>(DELIVERY, { id })).webhookDelivery;
const logOf = async (filter: Record<string, unknown>) =>
  (
    await developer.ok<{ webhookDeliveries: { edges: { node: { id: string; endpointId: string; eventName: string; status: string } }[] } }>(LOG, { filter })
  ).webhookDeliveries.edges.map((edge) => edge.node);
const eventOf = (request: ReceivedRequest) => JSON.parse(request.rawBody.toString('utf8')).event as string;
const ok = () => ({ status: 200, body: 'ok' });
const failing = () => ({ status: 500, body: 'down' });

describe('an app’s endpoints', () => {
  it('the Webhook URL given at submission is the first endpoint; more are added up to WEBHOOK_ENDPOINTS_PER_APP, each with its own events', async () => {
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/first', webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'] });
    const [first] = (await endpointsOf(developer, app.id)).webhookEndpoints;
    expect(first).toMatchObject({ appId: app.id, url: 'https://hooks.example.com/first', events: ['APP_PURCHASED', 'APP_REFUNDED'], state: 'ENABLED', rateLimitPerSecond: null });
    expect(first!.id).toMatch(/^ep_[0-9A-HJKMNP-TV-Z]{26}$/);

    const second = await create(app.id, { url: 'https://billing.example.com/plaza', description: 'Billing', events: ['APP_REFUNDED', 'APP_PURCHASED', 'APP_REFUNDED'] });
    expect(second).toMatchObject({ url: 'https://billing.example.com/plaza', description: 'Billing', events: ['APP_PURCHASED', 'APP_REFUNDED'], state: 'ENABLED' });
    const third = await create(app.id, { url: 'https://analytics.example.com/plaza', rateLimitPerSecond: 5 });
    expect(third).toMatchObject({ events: ALL_FOUR, rateLimitPerSecond: 5 });

    // The fourth is one too many (WEBHOOK_ENDPOINTS_PER_APP=3), and nothing is added.
    const tooMany = await developer.error(CREATE, { appId: app.id, input: { url: 'https://fourth.example.com/' } });
    expect(tooMany.extensions).toMatchObject({ code: 'CONFLICT', reason: 'TOO_MANY_ENDPOINTS' });
    const listed = await endpointsOf(developer, app.id);
    expect(listed.webhookEndpoints.map((e) => e.id)).toEqual([first!.id, second.id, third.id]);
    // The app-level names read the first endpoint.
    expect(listed).toMatchObject({ webhookUrl: 'https://hooks.example.com/first', webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'], webhookState: 'ENABLED' });
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/bad-input' });
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'not a url' }, 'url'],
      [{ url: 'https://ok.example.com/', events: [] }, 'events'],
      [{ url: 'https://ok.example.com/', events: ['APP_TEST'] }, 'events'],
      [{ url: 'https://ok.example.com/', rateLimitPerSecond: 0 }, 'rateLimitPerSecond'],
      [{ url: 'https://ok.example.com/', rateLimitPerSecond: 100_000 }, 'rateLimitPerSecond'],
      [{ url: 'https://ok.example.com/', description: 'x'.repeat(201) }, 'description'],
    ];
    for (const [input, field] of cases) {
      const error = await developer.error(CREATE, { appId: app.id, input });
      expect(error.extensions?.code, JSON.stringify(input)).toBe('BAD_USER_INPUT');
      expect(error.message, JSON.stringify(input)).toContain(field);
    }
    expect((await endpointsOf(developer, app.id)).webhookEndpoints).toHaveLength(1);
  });

  it('only the app’s owner sees and changes its endpoints: for anyone else they do not exist', async () => {
    const receiver = await WebhookReceiver.start(ok);
    const app = await submitApp(developer, { webhookUrl: receiver.url('/owned') });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const [endpoint] = (await endpointsOf(developer, app.id)).webhookEndpoints;
    // A listed app is visible to all, its endpoints only to its developer and reviewers.
    expect((await endpointsOf(stranger, app.id)).webhookEndpoints).toEqual([]);
    expect((await endpointsOf(reviewer, app.id)).webhookEndpoints).toHaveLength(1);
    for (const [query, variables] of [
      [UPDATE, { id: endpoint!.id, input: { url: 'https://attacker.example.com/' } }],
      [PAUSE, { id: endpoint!.id }],
      [DELETE, { id: endpoint!.id }],
    ] as const) {
      expect((await stranger.error(query, variables)).extensions?.code).toBe('NOT_FOUND');
    }
    expect((await stranger.error(CREATE, { appId: app.id, input: { url: 'https://attacker.example.com/' } })).extensions?.code).toBe('FORBIDDEN');
    expect((await endpointsOf(developer, app.id)).webhookEndpoints).toEqual([endpoint]);
  });

  it('a business event makes one delivery per endpoint that receives it, each with its own id, all signed with the app’s client secret', async () => {
    const [main, billing] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: main.url('/main') });
    const billingEndpoint = await create(app.id, { url: billing.url('/billing'), events: ['APP_REFUNDED'] });
    const secret = (await developer.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId: app.id })).revealClientSecret.value;

    const purchased = await emitEvent(plaza, app.id, { type: WebhookEventType.APP_PURCHASED });
    const refunded = await emitEvent(plaza, app.id, { type: WebhookEventType.APP_REFUNDED });
    const [mainRequests, billingRequests] = await Promise.all([main.waitForRequests(2), billing.waitForRequests(1)]);
    await waitForEngineIdle(plaza);
    expect(mainRequests.map(eventOf).sort()).toEqual(['app.purchased', 'app.refunded']);
    expect(billing.requests.map(eventOf)).toEqual(['app.refunded']);

    // The refund's two deliveries: different ids, the same body, each signed with the app's secret and naming itself.
    const refundLog = (await logOf({ appId: app.id, event: 'APP_REFUNDED' })).map((d) => d.id);
    expect(refundLog).toHaveLength(2);
    expect(refundLog).toContain(refunded.id);
    const toMain = mainRequests.find((r) => eventOf(r) === 'app.refunded')!;
    const toBilling = billingRequests[0];
    expect(toMain.rawBody.equals(toBilling.rawBody)).toBe(true);
    for (const request of [toMain, toBilling]) {
      expect(request.headers['x-platform-signature']).toBe(`sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`);
      expect(request.headers['webhook-id']).toBe(request.headers['x-platform-delivery']);
    }
    expect(new Set([toMain.headers['webhook-id'], toBilling.headers['webhook-id']])).toEqual(new Set(refundLog));

    // Each delivery names its endpoint; the log filters by endpoint.
    const billingDelivery = await deliveryOf(toBilling.headers['webhook-id'] as string);
    expect(billingDelivery).toMatchObject({ endpointId: billingEndpoint.id, endpoint: { id: billingEndpoint.id, url: billing.url('/billing') }, status: 'SUCCEEDED' });
    expect((await logOf({ endpointId: billingEndpoint.id })).map((d) => d.id)).toEqual([billingDelivery.id]);
    expect((await deliveryOf(purchased.id)).endpoint.url).toBe(main.url('/main'));
  });

  it('a paused endpoint records its events held and sends nothing, while the others go on; resumed, it sends new events, and recovery sends the held ones', async () => {
    const [main, paused] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: main.url('/main') });
    const second = await create(app.id, { url: paused.url('/paused') });
    const since = new Date(Date.now() - 1000).toISOString();
    expect((await developer.ok<{ pauseWebhookEndpoint: Endpoint }>(PAUSE, { id: second.id })).pauseWebhookEndpoint.state).toBe('PAUSED');

    await emitEvent(plaza, app.id);
    await emitEvent(plaza, app.id);
    await main.waitForRequests(2);
    await waitForEngineIdle(plaza);
    expect(paused.requests).toHaveLength(0);
    const held = await logOf({ endpointId: second.id });
    expect(held).toHaveLength(2);
    for (const { id } of held) {
      const delivery = await deliveryOf(id);
      expect(delivery).toMatchObject({ status: 'FAILED', attemptCount: 0, attempts: [] });
      expect(delivery.heldReason).toMatch(/paused/);
    }
    // Sending one again by hand is refused while paused, and records nothing.
    const refused = await developer.error(REDELIVER, { id: held[0]!.id });
    expect(refused.extensions).toMatchObject({ code: 'CONFLICT', reason: 'ENDPOINT_PAUSED' });
    expect((await deliveryOf(held[0]!.id)).attemptCount).toBe(0);
    // The second round's app-level names are untouched by a pause.
    expect((await endpointsOf(developer, app.id)).webhookState).toBe('ENABLED');

    await developer.ok(RESUME, { id: second.id });
    const fresh = await emitEvent(plaza, app.id);
    await paused.waitForRequests(1);
    expect(paused.requests[0]!.headers['x-platform-event']).toBe('app.purchased');
    expect(await logOf({ endpointId: second.id })).toHaveLength(3);
    expect(fresh.endpointId).not.toBe(second.id);

    const { recoverWebhookDeliveries } = await developer.ok<{ recoverWebhookDeliveries: { deliveriesQueued: number } }>(RECOVER, { appId: app.id, since, endpointId: second.id });
    expect(recoverWebhookDeliveries.deliveriesQueued).toBe(2);
    await paused.waitForRequests(3);
    for (const { id } of held) await waitForDelivery(developer, id, (d) => d.status === 'SUCCEEDED');
    await waitForEngineIdle(plaza);
    // Each held delivery once, and the main endpoint was sent nothing twice.
    expect(new Set(paused.requests.map((r) => r.headers['webhook-id'])).size).toBe(3);
    expect(main.requests).toHaveLength(3);
  });

  it('a dead endpoint is disabled on its own: the app’s healthy endpoint keeps receiving, and enableWebhook turns the dead one back on', async () => {
    const [healthy, dead] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(failing)]);
    const app = await submitApp(developer, { webhookUrl: healthy.url('/healthy') });
    const deadEndpoint = await create(app.id, { url: dead.url('/dead') });

    const first = await emitEvent(plaza, app.id);
    await logOf({ endpointId: deadEndpoint.id }).then(([d]) => waitForDelivery(developer, d!.id, (x) => x.status === 'FAILED', 15_000));
    // Once the endpoint's run of failures is older than WEBHOOK_DISABLE_AFTER (1 s) by the clock the rule reads (PostgreSQL's), another failure makes the sweep disable it.
    await expect
      .poll(
        async () =>
          (
            await plaza.services.db.query(`SELECT clock_timestamp() - failing_since > interval '1 second' AS old FROM webhook_endpoint_health WHERE endpoint_id = $1`, [
              deadEndpoint.id,
            ])
          )[0]?.old,
        { timeout: 10_000, interval: 50 },
      )
      .toBe(true);
    await emitEvent(plaza, app.id);
    await expect.poll(async () => (await endpointsOf(developer, app.id)).webhookEndpoints.map((e) => e.state), { timeout: 15_000, interval: 100 }).toEqual(['ENABLED', 'DISABLED']);
    // The app still receives (through its healthy endpoint): its webhook is not disabled.
    expect((await endpointsOf(developer, app.id)).webhookState).toBe('ENABLED');

    const deadRequests = dead.requests.length;
    const later = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, later.id, (x) => x.status === 'SUCCEEDED');
    await waitForEngineIdle(plaza);
    expect(dead.requests).toHaveLength(deadRequests);
    expect(healthy.requests.length).toBeGreaterThanOrEqual(3);
    expect((await deliveryOf(first.id)).status).toBe('SUCCEEDED');

    await developer.ok('mutation($appId: ID!) { enableWebhook(appId: $appId) { id } }', { appId: app.id });
    expect((await endpointsOf(developer, app.id)).webhookEndpoints.map((e) => e.state)).toEqual(['ENABLED', 'ENABLED']);
    expect((await endpointsOf(developer, app.id)).webhookState).toBe('ENABLED');
  });

  it('a hanging endpoint holds back none of its app’s other endpoint’s deliveries: every one succeeds while the hanging ones are still in flight', async () => {
    const [fast, hanging] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(() => 'hang')]);
    const app = await submitApp(developer, { webhookUrl: fast.url('/fast') });
    const hangingEndpoint = await create(app.id, { url: hanging.url('/hanging') });
    // More events than one destination's slots (32 per worker): before slots were kept per endpoint, the hanging
    // endpoint's attempts took the app's every slot, and the fast endpoint waited for their timeouts (10 s).
    const count = 40;
    for (let i = 0; i < count; i += 1) await emitEvent(plaza, app.id);
    await fast.waitForRequests(count, 30_000);
    const [fastEndpoint] = (await endpointsOf(developer, app.id)).webhookEndpoints;
    const fastDeliveries = await logOf({ endpointId: fastEndpoint!.id });
    expect(fastDeliveries).toHaveLength(count);
    await Promise.all(fastDeliveries.map((d) => waitForDelivery(developer, d.id, (x) => x.status === 'SUCCEEDED')));
    // Meanwhile not one attempt to the hanging endpoint has ended: they are all still waiting for their timeout.
    const stillHanging = await plaza.services.db.query(
      `SELECT count(*) FILTER (WHERE a.finished)::int AS finished, count(*)::int AS made FROM ${ALL_ATTEMPTS} a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
      [hangingEndpoint.id],
    );
    expect(stillHanging[0].finished).toBe(0);
    expect(stillHanging[0].made).toBeGreaterThan(0);
    expect(hanging.hangingNow).toBeGreaterThan(0);
    // Done with it: deleted (its open deliveries give up) and its connections cut, so that the cases after this one find the worker idle.
    await developer.ok(DELETE, { id: hangingEndpoint.id });
    await hanging.close();
    await waitForEngineIdle(plaza);
  });

  it('a paced endpoint is sent at most its rateLimitPerSecond in any second, while the app’s other endpoint goes at full speed', async () => {
    const [full, paced] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: full.url('/full') });
    const pace = 5;
    const pacedEndpoint = await create(app.id, { url: paced.url('/paced'), rateLimitPerSecond: pace });
    const count = 20;
    for (let i = 0; i < count; i += 1) await emitEvent(plaza, app.id);
    await Promise.all([full.waitForRequests(count, 30_000), paced.waitForRequests(count, 30_000)]);
    // The unpaced endpoint had everything well before the paced one, which needs (count - pace) / pace = 3 s at least.
    const lastFull = Math.max(...full.requests.map((r) => r.receivedAt));
    const pacedTimes = paced.requests.map((r) => r.receivedAt).sort((a, b) => a - b);
    expect(lastFull).toBeLessThan(pacedTimes[pacedTimes.length - pace]!);
    // As the receiver saw them. Plaza sends at most `pace` in any 1.1 s (delivery-engine.ts PACE_WINDOW_MS), so any
    // second holds `pace` unless one request spent more than 100 ms longer on its way than the one `pace` after it:
    // on this shared machine under load that happens (the receiver runs in this busy process), so at most one more
    // is allowed here, and the average pace must hold exactly.
    const mostInASecond = Math.max(...pacedTimes.map((t) => pacedTimes.filter((u) => u >= t && u < t + 1000).length));
    expect(mostInASecond).toBeLessThanOrEqual(pace + 1);
    expect(pacedTimes.at(-1)! - pacedTimes[0]!).toBeGreaterThanOrEqual(((count - pace) / pace) * 1000);
    const [{ attempts }] = await plaza.services.db.query(
      `SELECT count(*)::int AS attempts FROM ${ALL_ATTEMPTS} a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1`,
      [pacedEndpoint.id],
    );
    expect(attempts).toBe(count);
  });

  it('a deleted endpoint’s deliveries stay in the log: the open ones give up, none can be sent again, and the app’s Webhook URL becomes the next endpoint’s', async () => {
    const [kept, gone] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(failing)]);
    const app = await submitApp(developer, { webhookUrl: gone.url('/gone') });
    const [goneEndpoint] = (await endpointsOf(developer, app.id)).webhookEndpoints;
    const keptEndpoint = await create(app.id, { url: kept.url('/kept') });

    const event = await emitEvent(plaza, app.id);
    expect(event.endpointId).toBe(goneEndpoint!.id);
    await waitForDelivery(developer, event.id, (x) => x.attempts.length >= 1 && x.status === 'RETRYING');
    expect(await developer.ok(DELETE, { id: goneEndpoint!.id })).toEqual({ deleteWebhookEndpoint: true });

    await waitForDelivery(developer, event.id, (x) => x.status === 'FAILED');
    expect(await deliveryOf(event.id)).toMatchObject({ endpointId: goneEndpoint!.id, endpoint: null });
    expect((await logOf({ endpointId: goneEndpoint!.id })).map((d) => d.id)).toEqual([event.id]);
    expect((await developer.error(REDELIVER, { id: event.id })).extensions).toMatchObject({ code: 'CONFLICT', reason: 'ENDPOINT_DELETED' });
    expect(await endpointsOf(developer, app.id)).toMatchObject({ webhookUrl: kept.url('/kept'), webhookEndpoints: [{ id: keptEndpoint.id }] });
    await waitForEngineIdle(plaza);
    const goneRequests = gone.requests.length;
    await emitEvent(plaza, app.id);
    await kept.waitForRequests(2);
    await waitForEngineIdle(plaza);
    expect(gone.requests).toHaveLength(goneRequests);
  });

  it('updateApp’s Webhook URL and events set the first endpoint; removing the URL deletes it', async () => {
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/one' });
    const second = await create(app.id, { url: 'https://hooks.example.com/two' });
    await developer.ok('mutation($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { id } }', {
      id: app.id,
      input: { webhookUrl: 'https://hooks.example.com/one-moved', webhookEvents: ['APP_INSTALLED'] },
    });
    const moved = await endpointsOf(developer, app.id);
    expect(moved.webhookEndpoints.map((e) => [e.url, e.events])).toEqual([
      ['https://hooks.example.com/one-moved', ['APP_INSTALLED']],
      ['https://hooks.example.com/two', ALL_FOUR],
    ]);
    await developer.ok('mutation($id: ID!, $input: UpdateAppInput!) { updateApp(id: $id, input: $input) { id } }', { id: app.id, input: { webhookUrl: null } });
    expect(await endpointsOf(developer, app.id)).toMatchObject({ webhookUrl: 'https://hooks.example.com/two', webhookEndpoints: [{ id: second.id }] });
  });

  it('a test event goes to every endpoint, or to the one named, and counts as one test', async () => {
    const [a, b] = await Promise.all([WebhookReceiver.start(ok), WebhookReceiver.start(ok)]);
    const app = await submitApp(developer, { webhookUrl: a.url('/a') });
    const endpointB = await create(app.id, { url: b.url('/b'), events: ['APP_REFUNDED'] });
    // Test events go whatever an endpoint's events say.
    await developer.ok(SEND_TEST, { appId: app.id });
    await Promise.all([a.waitForRequests(1), b.waitForRequests(1)]);
    const named = (await developer.ok<{ sendTestWebhook: { endpointId: string } }>(SEND_TEST, { appId: app.id, endpointId: endpointB.id })).sendTestWebhook;
    expect(named.endpointId).toBe(endpointB.id);
    await b.waitForRequests(2);
    await waitForEngineIdle(plaza);
    expect(a.requests).toHaveLength(1);
    // Another app's endpoint is not this app's.
    const other = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/other' });
    const [otherEndpoint] = (await endpointsOf(developer, other.id)).webhookEndpoints;
    expect((await developer.error(SEND_TEST, { appId: app.id, endpointId: otherEndpoint!.id })).extensions?.code).toBe('NOT_FOUND');
    // Two test events so far for this app (the first to both endpoints, the refused one not counted): eight more
    // pass, and the eleventh in the minute is refused (WEBHOOK_TEST_EVENTS_PER_MINUTE counts events, not deliveries).
    for (let i = 0; i < 8; i += 1) await developer.ok(SEND_TEST, { appId: app.id, endpointId: endpointB.id });
    expect((await developer.error(SEND_TEST, { appId: app.id })).extensions?.code).toBe('RATE_LIMITED');
  });
});
