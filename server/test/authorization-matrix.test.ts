import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { startTestPlaza } from './helpers/plaza.js';
import { validAppInput } from './helpers/factories.js';
import {
  buildMatrixFixture,
  expand,
  observeRequest,
  observeSubscription,
  operationsOf,
  PRINCIPALS,
  ROOT_TYPES,
  type ExpectationSpec,
  type MatrixFixture,
  type MatrixRow,
  type PrincipalName,
  type RootType,
} from './helpers/authorization-matrix.js';

/*
 * Who may do what, for every operation in schema.graphql, against the owner's real objects.
 * Principals: anonymous; people (otherDeveloper, owner, reviewer, admin); the owner's API tokens
 * (tokenWithoutScope, deliveriesReadToken, deliveriesWriteToken, appsReadToken).
 * ALLOWED: answered, and the answer holds the owner's object. HIDDEN: answered without it (null or
 * empty), so nothing leaks. Otherwise the first error's extensions.code.
 */

// Any signed-in person acting for themselves; API tokens only where an operation names their scope.
const PEOPLE_ONLY: ExpectationSpec = { anonymous: 'UNAUTHENTICATED', people: 'ALLOWED', tokens: 'FORBIDDEN' };
// Reads of one's own things: everyone else gets their own, which never holds the owner's.
const OWN_READ: ExpectationSpec = { anonymous: 'UNAUTHENTICATED', people: 'HIDDEN', owner: 'ALLOWED', tokens: 'FORBIDDEN' };
// Changes to an approved app, which others can see but not touch.
const OWNER_ONLY: ExpectationSpec = { anonymous: 'UNAUTHENTICATED', people: 'FORBIDDEN', owner: 'ALLOWED', tokens: 'FORBIDDEN' };
const ADMIN_ONLY: ExpectationSpec = { anonymous: 'UNAUTHENTICATED', people: 'FORBIDDEN', admin: 'ALLOWED', tokens: 'FORBIDDEN' };
// Webhook Logs: owner and admins; other people learn nothing about the owner's deliveries.
// A reviewer's or admin's token with every scope reads only its owner's things: roles are for sessions.
const OTHERS_TOKENS_SEE_NOTHING: ExpectationSpec = { reviewerToken: 'HIDDEN', adminToken: 'HIDDEN' };
const DELIVERY_READ: ExpectationSpec = {
  anonymous: 'UNAUTHENTICATED',
  people: 'HIDDEN',
  owner: 'ALLOWED',
  admin: 'ALLOWED',
  tokens: 'FORBIDDEN',
  deliveriesReadToken: 'ALLOWED',
  ...OTHERS_TOKENS_SEE_NOTHING,
};
// One app's live feed, a delivery by id, a CLI's forward: owner and admins; anyone else, other people's
// role tokens included, is told it does not exist; a token of the owner's needs the operation's scope.
const NOT_FOUND_TO_OTHERS: ExpectationSpec = {
  anonymous: 'UNAUTHENTICATED',
  people: 'NOT_FOUND',
  owner: 'ALLOWED',
  admin: 'ALLOWED',
  tokens: 'FORBIDDEN',
  reviewerToken: 'NOT_FOUND',
  adminToken: 'NOT_FOUND',
};
const DELIVERY_WRITE: ExpectationSpec = { ...NOT_FOUND_TO_OTHERS, deliveriesWriteToken: 'ALLOWED' };
// An app's webhook endpoints: its owner only (admins included among the others); whether one exists is the owner's to know.
const ENDPOINT_WRITE: ExpectationSpec = { ...NOT_FOUND_TO_OTHERS, admin: 'NOT_FOUND', deliveriesWriteToken: 'ALLOWED' };
// Setting where events go needs a person signed in, as the app's Webhook URL does.
const ENDPOINT_URL: ExpectationSpec = { anonymous: 'UNAUTHENTICATED', people: 'NOT_FOUND', owner: 'ALLOWED', tokens: 'FORBIDDEN' };
const byEndpoint = (which: 'toChange' | 'toDelete') => (f: MatrixFixture, principal: PrincipalName) => ({ id: f.endpoints[which][principal] });

const byId = (id: (f: MatrixFixture) => string) => (f: MatrixFixture) => ({ id: id(f) });
// Each principal acts on a test delivery of its own making, so one row's change never meets another's.
const byTestDelivery = (f: MatrixFixture, principal: PrincipalName) => ({ deliveryId: f.testDeliveries[principal] });
const byAppId = (appId: (f: MatrixFixture) => string) => (f: MatrixFixture) => ({ appId: appId(f) });

const MATRIX: Record<RootType, Record<string, MatrixRow>> = {
  Query: {
    app: {
      document: 'query($id: ID!) { app(id: $id) { id } }',
      variables: byId((f) => f.apps.underReview),
      reveals: (f) => f.apps.underReview,
      // A reviewer's or admin's apps:read token does not open other developers' unreleased apps.
      expect: { all: 'HIDDEN', owner: 'ALLOWED', reviewer: 'ALLOWED', admin: 'ALLOWED', appsReadToken: 'ALLOWED' },
    },
    categories: { document: '{ categories { id } }', expect: { all: 'ALLOWED' } },
    me: { document: '{ me { id } }', expect: { all: 'ALLOWED', anonymous: 'HIDDEN' } },
    myApiTokens: { document: '{ myApiTokens(first: 100) { edges { node { id } } } }', reveals: (f) => f.revocableTokenId, expect: OWN_READ },
    myApps: { document: '{ myApps { id } }', reveals: (f) => f.apps.listed, expect: { ...OWN_READ, appsReadToken: 'ALLOWED', ...OTHERS_TOKENS_SEE_NOTHING } },
    myEarnings: { document: '{ myEarnings { appId } }', reveals: (f) => f.apps.paid, expect: OWN_READ },
    myLibrary: { document: '{ myLibrary { id } }', reveals: (f) => f.ownerInstallation.id, expect: OWN_READ },
    myPointsBalance: { document: '{ myPointsBalance { userId } }', reveals: (f) => f.ownerId, expect: OWN_READ },
    myPurchases: { document: '{ myPurchases(first: 100) { edges { node { purchaseId } } } }', reveals: (f) => f.ownerInstallation.purchaseId, expect: OWN_READ },
    notifications: { document: '{ notifications(first: 100) { edges { node { id } } } }', reveals: (f) => f.notificationId, expect: OWN_READ },
    // The buyer's purchases, found by the address they sign in with: an admin's refund starts there.
    purchasesByBuyerEmail: {
      document: '{ purchasesByBuyerEmail(email: "Buyer@plaza.test", first: 100) { edges { node { purchaseId } } } }',
      reveals: (f) => f.purchaseId,
      expect: ADMIN_ONLY,
    },
    reviewQueue: {
      document: '{ reviewQueue(first: 100) { edges { node { id } } } }',
      reveals: (f) => f.apps.underReview,
      expect: { anonymous: 'UNAUTHENTICATED', people: 'FORBIDDEN', reviewer: 'ALLOWED', admin: 'ALLOWED', tokens: 'FORBIDDEN' },
    },
    storeApps: { document: '{ storeApps(first: 100) { edges { node { id } } } }', reveals: (f) => f.apps.listed, expect: { all: 'ALLOWED' } },
    // Unfiltered, so the answer shows everything the principal may read.
    webhookDeliveries: { document: '{ webhookDeliveries(first: 100) { edges { node { id } } } }', reveals: (f) => f.deliveryId, expect: DELIVERY_READ },
    // Charts (issue 17): one app's delivery numbers for its owner, reviewers and admins (tokens: deliveries:read, their owner's apps only).
    webhookDeliveryStats: {
      document: 'query($appId: ID) { webhookDeliveryStats(appId: $appId) { window buckets { start } } }',
      variables: byAppId((f) => f.apps.paid),
      expect: {
        anonymous: 'UNAUTHENTICATED',
        people: 'FORBIDDEN',
        owner: 'ALLOWED',
        reviewer: 'ALLOWED',
        admin: 'ALLOWED',
        tokens: 'FORBIDDEN',
        deliveriesReadToken: 'ALLOWED',
      },
    },
    developerEarnings: {
      document: 'query($appId: ID) { developerEarnings(appId: $appId) { period buckets { start } } }',
      variables: byAppId((f) => f.apps.paid),
      expect: OWNER_ONLY,
    },
    platformStats: { document: '{ platformStats { deliveriesPerMinute { start } } }', expect: ADMIN_ONLY },
    userByEmail: { document: '{ userByEmail(email: "owner@studio.test") { id } }', reveals: (f) => f.ownerId, expect: ADMIN_ONLY },
    webhookDelivery: { document: 'query($id: ID!) { webhookDelivery(id: $id) { id } }', variables: byId((f) => f.deliveryId), reveals: (f) => f.deliveryId, expect: DELIVERY_READ },
    // plaza listen: the delivery signed now (replayable at the receiver for its window), so the owner's alone;
    // NOT_FOUND for anyone else, admins included, as if there were none.
    webhookForwardRequest: {
      document: 'query($deliveryId: ID!) { webhookForwardRequest(deliveryId: $deliveryId) { deliveryId } }',
      variables: (f) => ({ deliveryId: f.deliveryId }),
      reveals: (f) => f.deliveryId,
      expect: { ...DELIVERY_WRITE, admin: 'NOT_FOUND' },
    },
    // Nothing was forwarded locally in the fixture: those who may see the delivery get an empty list (HIDDEN), anyone else NOT_FOUND.
    webhookLocalForwards: {
      document: 'query($deliveryId: ID!) { webhookLocalForwards(deliveryId: $deliveryId) { id } }',
      variables: (f) => ({ deliveryId: f.deliveryId }),
      expect: {
        anonymous: 'UNAUTHENTICATED',
        people: 'NOT_FOUND',
        owner: 'HIDDEN',
        admin: 'HIDDEN',
        tokens: 'FORBIDDEN',
        deliveriesReadToken: 'HIDDEN',
        reviewerToken: 'NOT_FOUND',
        adminToken: 'NOT_FOUND',
      },
    },
  },

  // Each mutation acts on objects no other row reads, or one object per principal, so rows stay independent.
  Mutation: {
    createApiToken: { document: 'mutation { createApiToken(input: { name: "matrix", scopes: ["apps:read"] }) { id } }', expect: PEOPLE_ONLY },
    creditPoints: {
      document: 'mutation($userId: ID!) { creditPoints(userId: $userId, points: 1, reason: "matrix") { points } }',
      variables: (f) => ({ userId: f.ownerId }),
      expect: ADMIN_ONLY,
    },
    decideReview: {
      document: 'mutation($appId: ID!) { decideReview(input: { appId: $appId, outcome: APPROVED }) { id } }',
      variables: (f, principal) => ({ appId: f.apps.toDecide[principal] }),
      // Not even the owner may approve their own app.
      expect: { anonymous: 'UNAUTHENTICATED', people: 'FORBIDDEN', reviewer: 'ALLOWED', admin: 'ALLOWED', tokens: 'FORBIDDEN' },
    },
    // On a user outside the matrix, so no principal's roles change under the other rows.
    grantRole: { document: 'mutation($userId: ID!) { grantRole(userId: $userId, role: "REVIEWER") { id } }', variables: (f) => ({ userId: f.bystanderId }), expect: ADMIN_ONLY },
    installApp: { document: 'mutation($appId: ID!) { installApp(appId: $appId) { id } }', variables: byAppId((f) => f.apps.installable), expect: PEOPLE_ONLY },
    // Only the developer opens an approved app without having installed it.
    launchApp: { document: 'mutation($appId: ID!) { launchApp(appId: $appId) { token } }', variables: byAppId((f) => f.apps.listed), expect: OWNER_ONLY },
    markNotificationRead: {
      document: 'mutation($id: ID!) { markNotificationRead(id: $id) { id } }',
      variables: byId((f) => f.notificationId),
      expect: { ...OWNER_ONLY, people: 'NOT_FOUND', owner: 'ALLOWED' },
    },
    purchaseApp: { document: 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }', variables: byAppId((f) => f.apps.paid), expect: PEOPLE_ONLY },
    // Owner or admin; the listed app's deliveries all succeeded, so nothing is sent again.
    recoverWebhookDeliveries: {
      document: 'mutation($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { appId deliveriesQueued } }',
      variables: (f) => ({ appId: f.apps.listed, since: '2020-01-01T00:00:00Z' }),
      expect: { ...OWNER_ONLY, admin: 'ALLOWED', deliveriesWriteToken: 'ALLOWED' },
    },
    createWebhookEndpoint: {
      document: 'mutation($appId: ID!, $url: String!) { createWebhookEndpoint(appId: $appId, input: { url: $url }) { id } }',
      variables: (f) => ({ appId: f.apps.editable, url: f.receiver.url('/created') }),
      expect: OWNER_ONLY,
    },
    updateWebhookEndpoint: {
      document: 'mutation($id: ID!, $url: String!) { updateWebhookEndpoint(id: $id, input: { url: $url }) { id } }',
      variables: (f, principal) => ({ ...byEndpoint('toChange')(f, principal), url: f.receiver.url('/updated') }),
      expect: ENDPOINT_URL,
    },
    pauseWebhookEndpoint: { document: 'mutation($id: ID!) { pauseWebhookEndpoint(id: $id) { id } }', variables: byEndpoint('toChange'), expect: ENDPOINT_WRITE },
    resumeWebhookEndpoint: { document: 'mutation($id: ID!) { resumeWebhookEndpoint(id: $id) { id } }', variables: byEndpoint('toChange'), expect: ENDPOINT_WRITE },
    deleteWebhookEndpoint: { document: 'mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }', variables: byEndpoint('toDelete'), expect: ENDPOINT_WRITE },
    // Enabling an enabled webhook changes nothing, so the row breaks no other.
    enableWebhook: {
      document: 'mutation($appId: ID!) { enableWebhook(appId: $appId) { id webhookState } }',
      variables: byAppId((f) => f.apps.listed),
      expect: { ...OWNER_ONLY, deliveriesWriteToken: 'ALLOWED' },
    },
    redeliverWebhook: {
      document: 'mutation($deliveryId: ID!) { redeliverWebhook(deliveryId: $deliveryId) { id } }',
      variables: byTestDelivery,
      expect: DELIVERY_WRITE,
    },
    refundPurchase: {
      document: 'mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId) { status } }',
      variables: (f) => ({ purchaseId: f.purchaseId }),
      expect: ADMIN_ONLY,
    },
    revealClientSecret: { document: 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', variables: byAppId((f) => f.apps.listed), expect: OWNER_ONLY },
    revokeRole: { document: 'mutation($userId: ID!) { revokeRole(userId: $userId, role: "REVIEWER") { id } }', variables: (f) => ({ userId: f.bystanderId }), expect: ADMIN_ONLY },
    revokeApiToken: { document: 'mutation($id: ID!) { revokeApiToken(id: $id) }', variables: byId((f) => f.revocableTokenId), expect: OWNER_ONLY },
    // The listed app's receiver does not check signatures, so a new secret breaks no later row.
    rotateClientSecret: { document: 'mutation($appId: ID!) { rotateClientSecret(appId: $appId) { value } }', variables: byAppId((f) => f.apps.listed), expect: OWNER_ONLY },
    finishClientSecretRotation: {
      document: 'mutation($appId: ID!) { finishClientSecretRotation(appId: $appId) { value } }',
      variables: byAppId((f) => f.apps.listed),
      expect: OWNER_ONLY,
    },
    rotateSessionSigningKey: { document: 'mutation { rotateSessionSigningKey }', expect: ADMIN_ONLY },
    sendTestWebhook: {
      document: 'mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }',
      variables: byAppId((f) => f.apps.listed),
      expect: { ...OWNER_ONLY, deliveriesWriteToken: 'ALLOWED' },
    },
    // A sample event for listening CLI sessions only: nothing is sent to the webhook URL, so no other row sees it.
    triggerWebhookEvent: {
      document: 'mutation($appId: ID!) { triggerWebhookEvent(appId: $appId, event: APP_TEST) { deliveryId } }',
      variables: byAppId((f) => f.apps.listed),
      expect: { ...OWNER_ONLY, deliveriesWriteToken: 'ALLOWED' },
    },
    // A local answer recorded beside (never on) one test delivery per principal.
    reportLocalForward: {
      document: 'mutation($deliveryId: ID!) { reportLocalForward(deliveryId: $deliveryId, statusCode: 200, durationMs: 5) { id } }',
      variables: byTestDelivery,
      expect: DELIVERY_WRITE,
    },
    submitApp: { document: 'mutation($input: SubmitAppInput!) { submitApp(input: $input) { id } }', variables: () => ({ input: validAppInput() }), expect: PEOPLE_ONLY },
    uninstallApp: { document: 'mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }', variables: byAppId((f) => f.apps.uninstallable), expect: PEOPLE_ONLY },
    // The webhook URL is not part of the listing, so the app stays approved.
    updateApp: {
      document: 'mutation($id: ID!, $webhookUrl: String!) { updateApp(id: $id, input: { webhookUrl: $webhookUrl }) { id } }',
      variables: (f) => ({ id: f.apps.editable, webhookUrl: f.receiver.url('/edited') }),
      expect: OWNER_ONLY,
    },
    updatePreferences: { document: 'mutation { updatePreferences(locale: "vi") { id } }', expect: PEOPLE_ONLY },
  },

  // graphql-ws closes a connection without a valid credential (4403): recorded as UNAUTHENTICATED.
  Subscription: {
    notificationAdded: { document: 'subscription { notificationAdded { id } }', expect: PEOPLE_ONLY },
    webhookDeliveryUpdated: {
      document: 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id } }',
      variables: byAppId((f) => f.apps.listed),
      expect: { ...NOT_FOUND_TO_OTHERS, deliveriesReadToken: 'ALLOWED' },
    },
    webhookTestEventTriggered: {
      document: 'subscription($appId: ID!) { webhookTestEventTriggered(appId: $appId) { deliveryId } }',
      variables: byAppId((f) => f.apps.listed),
      // Each event arrives freshly signed with the app's real secret, as webhookForwardRequest's: the owner's only.
      expect: { ...DELIVERY_WRITE, admin: 'NOT_FOUND' },
    },
  },
};

// Fields of an app that everyone sees (approved, listed) that only some may read: the public gets the listing alone.
const ON_A_LISTED_APP: Record<string, { selection: string; expect: ExpectationSpec }> = {
  webhookUrl: { selection: 'webhookUrl', expect: { all: 'HIDDEN', owner: 'ALLOWED', reviewer: 'ALLOWED', admin: 'ALLOWED', appsReadToken: 'ALLOWED' } },
  reviewDecisions: { selection: 'reviewDecisions { id }', expect: { all: 'HIDDEN', owner: 'ALLOWED', reviewer: 'ALLOWED', admin: 'ALLOWED', appsReadToken: 'ALLOWED' } },
  preChecks: { selection: 'preChecks { status }', expect: { all: 'HIDDEN', owner: 'ALLOWED', reviewer: 'ALLOWED', admin: 'ALLOWED', appsReadToken: 'ALLOWED' } },
  // Revenue and the secret's audit follow myEarnings and revealClientSecret: the owner, signed in.
  earnings: { selection: 'earnings { salesCount }', expect: { all: 'HIDDEN', owner: 'ALLOWED' } },
  clientSecretAudit: { selection: 'clientSecretAudit { action }', expect: { all: 'HIDDEN', owner: 'ALLOWED' } },
};

const SCHEMA_OPERATIONS = operationsOf(new URL('../../schema.graphql', import.meta.url));

let fixture: MatrixFixture;
const openSockets: Client[] = [];

beforeAll(async () => {
  // The fixture sends a test event per principal and the sendTestWebhook row one more each: past the per-app minute's 10
  // (webhook-test-events.test.ts holds that limit), the rows would judge the rate limit instead of who may ask.
  fixture = await buildMatrixFixture(await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TEST_EVENTS_PER_MINUTE: '1000' }));
});
afterAll(async () => {
  // dispose() is typed void | Promise<void>: the async arrow makes each a promise to wait for.
  await Promise.all(openSockets.map(async (socket) => socket.dispose()));
});

describe('the authorization matrix', () => {
  it.each(ROOT_TYPES)('has a row for every %s field of schema.graphql, and no other', (type) => {
    const inSchema = SCHEMA_OPERATIONS[type];
    const inMatrix = Object.keys(MATRIX[type]);
    const missing = inSchema.filter((name) => !inMatrix.includes(name));
    const gone = inMatrix.filter((name) => !inSchema.includes(name));
    expect(missing, `${type} operations in schema.graphql without a row in the authorization matrix: ${missing.join(', ')}`).toEqual([]);
    expect(gone, `rows for ${type} operations that schema.graphql no longer has: ${gone.join(', ')}`).toEqual([]);
  });
});

for (const type of ROOT_TYPES) {
  describe(type, () => {
    for (const operation of SCHEMA_OPERATIONS[type]) {
      it(operation, async () => {
        const row = MATRIX[type][operation];
        if (!row) throw new Error(`${type}.${operation} has no row in the authorization matrix: say what each principal may do`);
        const observed: Record<string, string> = {};
        if (type === 'Subscription') {
          // One at a time: acceptance is read off the server's live subscription count.
          for (const principal of PRINCIPALS) observed[principal] = await observeSubscription(fixture, row, principal, openSockets);
        } else {
          const outcomes = await Promise.all(PRINCIPALS.map(async (principal) => [principal, await observeRequest(fixture, operation, row, principal)] as const));
          for (const [principal, outcome] of outcomes) observed[principal] = outcome;
        }
        expect(observed).toEqual(expand(row.expect));
      });
    }
  });
}

describe('owner-only fields of a listed app', () => {
  it.each(Object.keys(ON_A_LISTED_APP))('%s', async (field) => {
    const entry = ON_A_LISTED_APP[field];
    if (!entry) throw new Error(`${field} has no entry`);
    const { selection, expect: spec } = entry;
    const row: MatrixRow = {
      document: `query($id: ID!) { app(id: $id) { answer: ${selection} } }`,
      variables: byId((f) => f.apps.paid),
      pick: (data) => data.app?.answer,
      expect: spec,
    };
    const outcomes = await Promise.all(PRINCIPALS.map((principal) => observeRequest(fixture, 'app', row, principal)));
    expect(Object.fromEntries(PRINCIPALS.map((principal, i) => [principal, outcomes[i]]))).toEqual(expand(spec));
  });
});
