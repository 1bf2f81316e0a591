import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLErrorBody, GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, SUBMIT_APP, UPDATE_APP, submitApp, validAppInput } from './helpers/factories.js';
import { AppErrorReason } from '../src/modules/apps/app.errors.js';
import { IdentityErrorReason } from '../src/modules/identity/identity.errors.js';
import { MarketplaceErrorReason } from '../src/modules/marketplace/marketplace.errors.js';
import { splitRevenue } from '../src/modules/marketplace/revenue.js';
import { ReviewErrorReason } from '../src/modules/review/review.errors.js';
import { WebhookErrorReason } from '../src/modules/webhooks/webhook.errors.js';
import { PlazaError } from '../src/platform/errors.js';

// Each refusal a user can meet carries a stable `extensions.reason` from its feature's enum, beside the contract's
// code, so a client (the portal in another language, the CLI, a script) can branch on it without reading the
// message. Refusals of a field's shape keep `field` as their detail and are covered by their features' tests.

const ME = '{ me { id } }';
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
const REVOKE_TOKEN = 'mutation($id: ID!) { revokeApiToken(id: $id) }';
const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const INSTALL = 'mutation($appId: ID!) { installApp(appId: $appId) { purchaseId } }';
const UNINSTALL = 'mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }';
const REFUND = 'mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId) { status } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!, $reason: String!) { creditPoints(userId: $userId, points: $points, reason: $reason) { points } }';
const LAUNCH = 'mutation($appId: ID!) { launchApp(appId: $appId) { token } }';
const TEST_EVENT = 'mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza({ POINT_VALUE_VND: '10000', WEBHOOK_TEST_EVENTS_PER_MINUTE: '1', RUN_WORKER: 'false' });
  developer = await plaza.signIn('reasons@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  admin = await plaza.signIn(ADMIN_EMAIL);
});

const expectRefused = (error: GraphQLErrorBody, code: string, reason: string) => expect(error.extensions).toMatchObject({ code, reason });

async function listedApp(overrides: Record<string, unknown> = {}) {
  const app = await submitApp(developer, overrides);
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  return app;
}

describe('identity', () => {
  it('says why a credential is refused: not Plaza’s, signed out, expired, unknown, revoked', async () => {
    expectRefused(await developer.withToken('not-a-plaza-token').error(ME), 'UNAUTHENTICATED', IdentityErrorReason.NOT_A_PLAZA_TOKEN);

    const session = await plaza.signIn('signed-out@users.test');
    await fetch(`${plaza.url}/auth/sign-out`, { method: 'POST', headers: { authorization: `Bearer ${session.token}` } });
    expectRefused(await session.error(ME), 'UNAUTHENTICATED', IdentityErrorReason.SIGNED_OUT);

    const expiring = await plaza.signIn('expired@users.test');
    await plaza.services.db.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [expiring.userId]);
    expectRefused(await expiring.error(ME), 'UNAUTHENTICATED', IdentityErrorReason.SESSION_EXPIRED);

    const { createApiToken } = await developer.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: 'ci', scopes: ['apps:read'] } });
    expectRefused(await developer.withToken(`${createApiToken.token.slice(0, -4)}zzzz`).error(ME), 'UNAUTHENTICATED', IdentityErrorReason.API_TOKEN_UNKNOWN);
    await plaza.services.db.query("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [createApiToken.id]);
    expectRefused(await developer.withToken(createApiToken.token).error(ME), 'UNAUTHENTICATED', IdentityErrorReason.API_TOKEN_EXPIRED);
    await developer.ok(REVOKE_TOKEN, { id: createApiToken.id });
    expectRefused(await developer.withToken(createApiToken.token).error(ME), 'UNAUTHENTICATED', IdentityErrorReason.API_TOKEN_REVOKED);
  });

  it('refuses revoking another account’s API token with NOT_TOKEN_OWNER', async () => {
    const { createApiToken } = await developer.ok<{ createApiToken: { id: string } }>(CREATE_TOKEN, { input: { name: 'mine', scopes: ['apps:read'] } });
    const other = await plaza.signIn('other@users.test');
    expectRefused(await other.error(REVOKE_TOKEN, { id: createApiToken.id }), 'FORBIDDEN', IdentityErrorReason.NOT_TOKEN_OWNER);
  });
});

describe('review', () => {
  it('says why a decision is refused: own app, not pending, changed since opened', async () => {
    const own = await submitApp(reviewer);
    expectRefused(await reviewer.error(DECIDE, { input: { appId: own.id, outcome: 'APPROVED' } }), 'FORBIDDEN', ReviewErrorReason.OWN_APP);

    const app = await submitApp(developer);
    expectRefused(await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: app.revision + 1 } }), 'CONFLICT', ReviewErrorReason.REVISION_CHANGED);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    expectRefused(await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } }), 'CONFLICT', ReviewErrorReason.NOT_PENDING_REVIEW);
  });
});

describe('apps', () => {
  it('says why: a price no purchase can charge, a change by someone who does not own the app', async () => {
    expectRefused(await developer.error(SUBMIT_APP, { input: validAppInput({ pricing: 'PAID', pricePoints: 1_000_000 }) }), 'BAD_USER_INPUT', AppErrorReason.PRICE_NOT_CHARGEABLE);
    const app = await listedApp();
    const stranger = await plaza.signIn('stranger@studio.test');
    expectRefused(await stranger.error(UPDATE_APP, { id: app.id, input: { name: 'Taken over' } }), 'FORBIDDEN', AppErrorReason.NOT_APP_OWNER);
  });
});

describe('marketplace', () => {
  it('says why a refund is refused: a free install, a free reinstall of a bought app', async () => {
    const free = await listedApp();
    const paid = await listedApp({ pricing: 'PAID', pricePoints: 5 });
    const user = await plaza.signIn('refunds@users.test');
    await admin.ok(CREDIT, { userId: user.userId, points: 5, reason: 'test balance' });

    const { installApp } = await user.ok<{ installApp: { purchaseId: string } }>(INSTALL, { appId: free.id });
    expectRefused(await admin.error(REFUND, { purchaseId: installApp.purchaseId }), 'BAD_USER_INPUT', MarketplaceErrorReason.FREE_INSTALL);

    await user.ok(BUY, { appId: paid.id });
    await user.ok(UNINSTALL, { appId: paid.id });
    const reinstall = (await user.ok<{ installApp: { purchaseId: string } }>(INSTALL, { appId: paid.id })).installApp;
    expectRefused(await admin.error(REFUND, { purchaseId: reinstall.purchaseId }), 'BAD_USER_INPUT', MarketplaceErrorReason.FREE_REINSTALL);
  });

  // (An API token never gets as far as launchApp's own SESSION_REQUIRED: tokens are refused every mutation before it.)
  it('says why an app is not opened by someone who does not have it', async () => {
    const app = await listedApp();
    const user = await plaza.signIn('not-installed@users.test');
    expectRefused(await user.error(LAUNCH, { appId: app.id }), 'FORBIDDEN', MarketplaceErrorReason.NOT_OWNED);
  });

  it('says why a listed price cannot be charged any more (POINT_VALUE_VND raised after it was listed)', () => {
    let refused: unknown;
    try {
      splitRevenue(1_000_000, 10_000);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(PlazaError);
    expect((refused as PlazaError).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'appId', reason: MarketplaceErrorReason.PRICE_NOT_CHARGEABLE });
  });
});

describe('webhooks', () => {
  it('says why a test event is refused: no webhook URL, too many in a minute', async () => {
    const without = await submitApp(developer);
    expectRefused(await developer.error(TEST_EVENT, { appId: without.id }), 'BAD_USER_INPUT', WebhookErrorReason.NO_WEBHOOK_URL);

    const app = await submitApp(developer, { webhookUrl: 'http://127.0.0.1:9/hook' });
    await developer.ok(TEST_EVENT, { appId: app.id });
    const refused = await developer.error(TEST_EVENT, { appId: app.id });
    expectRefused(refused, 'RATE_LIMITED', WebhookErrorReason.TOO_MANY_TEST_EVENTS);
    expect(refused.extensions).toMatchObject({ retryAfterSeconds: expect.any(Number) });
  });
});
