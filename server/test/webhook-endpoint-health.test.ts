import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, waitForDelivery, waitForEngineIdle } from './helpers/webhooks.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { WebhookEventType } from '../src/modules/webhooks/webhook.types.js';

// WebhookEndpoint.health: each endpoint's health at a glance, from its run of failures and its last day's
// attempts, so a developer with several endpoints sees which one is failing without reading the log.

const HEALTH_FIELDS = 'failingSince lastFailureAt lastError failedDeliveries attemptsSucceeded attemptsFailed successRate openDeliveries heldDeliveries lastAttemptAt';
const ENDPOINTS = `query($id: ID!) { app(id: $id) { webhookEndpoints { id url health { ${HEALTH_FIELDS} } } } }`;
const CREATE = `mutation($appId: ID!, $input: WebhookEndpointInput!) { createWebhookEndpoint(appId: $appId, input: $input) { id } }`;
const PAUSE = `mutation($id: ID!) { pauseWebhookEndpoint(id: $id) { id } }`;
const RESUME = `mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { id } }`;
const STATES = `query($id: ID!) { app(id: $id) { webhookState webhookEndpoints { state } } }`;
const DELETE = 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }';
const LOG = `query($filter: WebhookDeliveryFilter) { webhookDeliveries(filter: $filter, first: 50) { edges { node { id status } } } }`;
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }';

interface Health {
  failingSince: string | null;
  lastFailureAt: string | null;
  lastError: string | null;
  failedDeliveries: number;
  attemptsSucceeded: number;
  attemptsFailed: number;
  successRate: number | null;
  openDeliveries: number;
  heldDeliveries: number;
  lastAttemptAt: string | null;
}

let plaza: TestPlaza;
let developer: GraphQLTestClient;

beforeAll(async () => {
  // Three scheduled attempts 300 ms apart, and no automatic disable while a case runs.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms,300ms', WEBHOOK_DISABLE_AFTER: '1h' });
  developer = await plaza.signIn('endpoint-health-dev@studio.test');
});

const healthOf = async (client: GraphQLTestClient, appId: string) =>
  new Map((await client.ok<{ app: { webhookEndpoints: { id: string; health: Health | null }[] } }>(ENDPOINTS, { id: appId })).app.webhookEndpoints.map((e) => [e.id, e.health]));
const create = async (appId: string, input: Record<string, unknown>) =>
  (await developer.ok<{ createWebhookEndpoint: { id: string } }>(CREATE, { appId, input })).createWebhookEndpoint.id;
const logOf = async (endpointId: string) =>
  (await developer.ok<{ webhookDeliveries: { edges: { node: { id: string; status: string } }[] } }>(LOG, { filter: { endpointId } })).webhookDeliveries.edges.map((e) => e.node);

describe('WebhookEndpoint.health', () => {
  it('tells each endpoint of one app apart: the healthy one, the failing one with its last error, the paused one with its held deliveries, the hanging one with its open one', async () => {
    const [healthy, dead, paused, hanging] = await Promise.all([
      WebhookReceiver.start(() => ({ status: 200, body: 'ok' })),
      WebhookReceiver.start(() => ({ status: 503, body: 'down for maintenance' })),
      WebhookReceiver.start(() => ({ status: 200, body: 'ok' })),
      WebhookReceiver.start(() => 'hang'),
    ]);
    const startedAt = Date.now();
    const app = await submitApp(developer, { webhookUrl: healthy.url('/healthy'), webhookEvents: ['APP_PURCHASED'] });
    const [healthyId] = (await healthOf(developer, app.id)).keys();
    const deadId = await create(app.id, { url: dead.url('/dead'), events: ['APP_PURCHASED'] });
    const pausedId = await create(app.id, { url: paused.url('/paused'), events: ['APP_PURCHASED'] });
    const hangingId = await create(app.id, { url: hanging.url('/hanging'), events: ['APP_REFUNDED'] });
    await developer.ok(PAUSE, { id: pausedId });

    // Before anything is sent, every endpoint reads as nothing to tell.
    const before = await healthOf(developer, app.id);
    expect(before.get(healthyId!)).toEqual({
      failingSince: null,
      lastFailureAt: null,
      lastError: null,
      failedDeliveries: 0,
      attemptsSucceeded: 0,
      attemptsFailed: 0,
      successRate: null,
      openDeliveries: 0,
      heldDeliveries: 0,
      lastAttemptAt: null,
    });

    await emitEvent(plaza, app.id);
    await emitEvent(plaza, app.id);
    await healthy.waitForRequests(2);
    for (const { id } of await logOf(deadId)) await waitForDelivery(developer, id, (d) => d.status === 'FAILED', 15_000);
    await waitForEngineIdle(plaza);

    const health = await healthOf(developer, app.id);
    const ok = health.get(healthyId!)!;
    expect(ok).toMatchObject({
      failingSince: null,
      lastError: null,
      failedDeliveries: 0,
      attemptsSucceeded: 2,
      attemptsFailed: 0,
      successRate: 1,
      openDeliveries: 0,
      heldDeliveries: 0,
    });
    expect(Date.parse(ok.lastAttemptAt!)).toBeGreaterThanOrEqual(startedAt - 5_000);

    // Two deliveries, three attempts each, every one answered 503: both gave up.
    const failing = health.get(deadId)!;
    expect(failing).toMatchObject({ failedDeliveries: 2, attemptsSucceeded: 0, attemptsFailed: 6, successRate: 0, openDeliveries: 0, heldDeliveries: 0 });
    expect(failing.lastError).toMatch(/503/);
    expect(Date.parse(failing.failingSince!)).toBeGreaterThanOrEqual(startedAt - 5_000);
    expect(Date.parse(failing.lastFailureAt!)).toBeGreaterThan(Date.parse(failing.failingSince!));
    expect(Date.parse(failing.lastAttemptAt!)).toBeGreaterThanOrEqual(Date.parse(failing.lastFailureAt!));

    // Paused: both events recorded and held, nothing sent.
    expect(health.get(pausedId)).toMatchObject({ attemptsSucceeded: 0, attemptsFailed: 0, successRate: null, openDeliveries: 0, heldDeliveries: 2, lastAttemptAt: null });
    expect(paused.requests).toHaveLength(0);

    // A refund goes only to the hanging endpoint: open (PENDING) while its attempt waits for the receiver.
    await emitEvent(plaza, app.id, { type: WebhookEventType.APP_REFUNDED });
    await vi.waitFor(() => expect(hanging.hangingNow).toBe(1), { timeout: 10_000 });
    const waiting = await healthOf(developer, app.id);
    expect(waiting.get(hangingId)).toMatchObject({ openDeliveries: 1, heldDeliveries: 0, attemptsSucceeded: 0, attemptsFailed: 0, failingSince: null });
    expect(waiting.get(healthyId!)).toEqual(ok);
    await developer.ok(DELETE, { id: hangingId });
    await hanging.close();
    await waitForEngineIdle(plaza);
  });

  it('is for those who may read the endpoint’s deliveries: its owner, reviewers and admins; a token without deliveries:read reads null', async () => {
    const receiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok' }));
    const app = await submitApp(developer, { webhookUrl: receiver.url('/owned') });
    const sent = await emitEvent(plaza, app.id);
    await waitForDelivery(developer, sent.id, (d) => d.status === 'SUCCEEDED');
    const [reviewer, admin, stranger] = await Promise.all([plaza.signIn(REVIEWER_EMAIL), plaza.signIn(ADMIN_EMAIL), plaza.signIn('endpoint-health-stranger@studio.test')]);
    const token = async (scopes: string[]) =>
      developer.withToken((await developer.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: scopes.join(' '), scopes } })).createApiToken.token);

    // Listed, so that anyone may read the app itself.
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const ownedEntries = [...(await healthOf(developer, app.id)).entries()];
    expect(ownedEntries).toHaveLength(1);
    const [endpointId, owned] = ownedEntries[0]!;
    expect(owned).toMatchObject({ attemptsSucceeded: 1, successRate: 1 });
    expect([...(await healthOf(reviewer, app.id)).values()]).toEqual([owned]);
    expect([...(await healthOf(await token(['apps:read', 'deliveries:read']), app.id)).values()]).toEqual([owned]);
    expect([...(await healthOf(await token(['apps:read']), app.id)).values()]).toEqual([null]);
    expect([...(await healthOf(stranger, app.id)).values()]).toEqual([]);
    // An admin reaches the endpoint through one of its deliveries.
    const { webhookDelivery } = await admin.ok<{ webhookDelivery: { endpoint: { id: string; health: Health } } }>(
      `query($id: ID!) { webhookDelivery(id: $id) { endpoint { id health { ${HEALTH_FIELDS} } } } }`,
      { id: sent.id },
    );
    expect(webhookDelivery.endpoint).toEqual({ id: endpointId, health: owned });
  });

  it('a page of apps reads every endpoint’s health in one statement', async () => {
    const apps: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const app = await submitApp(developer, { webhookUrl: `https://hooks.example.com/page-${i}` });
      await create(app.id, { url: `https://hooks.example.com/page-${i}-second` });
      apps.push(app.id);
    }
    const logQuery = vi.spyOn(plaza.services.db.logger, 'logQuery');
    try {
      const { myApps } = await developer.ok<{ myApps: { id: string; webhookEndpoints: { health: Health }[] }[] }>(
        `{ myApps { id webhookEndpoints { id health { successRate openDeliveries heldDeliveries failingSince } } } }`,
      );
      const ours = myApps.filter((app) => apps.includes(app.id));
      expect(ours.flatMap((app) => app.webhookEndpoints)).toHaveLength(6);
      const reads = logQuery.mock.calls.map((call) => String(call[0])).filter((sql) => /webhook_endpoint_hourly/.test(sql));
      expect(reads).toHaveLength(1);
    } finally {
      logQuery.mockRestore();
    }
  });
});

describe('App.webhookState with several endpoints', () => {
  /** What the health sweep does to an endpoint failing past WEBHOOK_DISABLE_AFTER (its own path, run here by hand). */
  const disable = (id: string) => plaza.services.db.transaction((manager) => plaza.services.webhookEndpoints.disable(manager, [id]));
  const statesOf = async (appId: string) => {
    const { app } = await developer.ok<{ app: { webhookState: string; webhookEndpoints: { state: string }[] } }>(STATES, { id: appId });
    return [app.webhookState, app.webhookEndpoints.map((e) => e.state)];
  };

  it('is DISABLED only when no endpoint receives: one disabled beside an enabled one leaves the app ENABLED; an app with one endpoint has its state', async () => {
    const app = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/state-first' });
    const [firstId] = (await healthOf(developer, app.id)).keys();
    const secondId = await create(app.id, { url: 'https://hooks.example.com/state-second' });

    await disable(secondId);
    expect(await statesOf(app.id)).toEqual(['ENABLED', ['ENABLED', 'DISABLED']]);
    await disable(firstId!);
    expect(await statesOf(app.id)).toEqual(['DISABLED', ['DISABLED', 'DISABLED']]);
    await developer.ok(RESUME, { id: firstId });
    expect(await statesOf(app.id)).toEqual(['ENABLED', ['ENABLED', 'DISABLED']]);
    // Paused by its owner beside a disabled one: nothing receives, and failure is why.
    await developer.ok(PAUSE, { id: firstId });
    expect(await statesOf(app.id)).toEqual(['DISABLED', ['PAUSED', 'DISABLED']]);
    await developer.ok('mutation($appId: ID!) { enableWebhook(appId: $appId) { id } }', { appId: app.id });
    expect(await statesOf(app.id)).toEqual(['ENABLED', ['PAUSED', 'ENABLED']]);

    // The second round's names for an app with one endpoint: its state is the app's.
    const single = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/state-single' });
    const [onlyId] = (await healthOf(developer, single.id)).keys();
    await disable(onlyId!);
    expect(await statesOf(single.id)).toEqual(['DISABLED', ['DISABLED']]);
    await developer.ok('mutation($appId: ID!) { enableWebhook(appId: $appId) { id } }', { appId: single.id });
    expect(await statesOf(single.id)).toEqual(['ENABLED', ['ENABLED']]);
  });
});
