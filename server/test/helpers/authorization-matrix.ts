import { readFileSync } from 'node:fs';
import { buildSchema, isObjectType } from 'graphql';
import type { Client } from 'graphql-ws';
import { vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, type TestPlaza } from './plaza.js';
import type { GraphQLTestClient } from './graphql-client.js';
import { DECIDE, submitApp } from './factories.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { isFinal, waitForDelivery } from './webhooks.js';
import { first } from './lists.js';

export const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'] as const;
export type RootType = (typeof ROOT_TYPES)[number];

/** Every operation of the checked-in schema, by root type, as clients of the contract see it. */
export function operationsOf(schemaFile: URL): Record<RootType, string[]> {
  const schema = buildSchema(readFileSync(schemaFile, 'utf8'));
  const fieldsOf = (name: RootType) => {
    const type = schema.getType(name);
    return isObjectType(type) ? Object.keys(type.getFields()) : [];
  };
  return { Query: fieldsOf('Query'), Mutation: fieldsOf('Mutation'), Subscription: fieldsOf('Subscription') };
}

export const PEOPLE = ['otherDeveloper', 'owner', 'reviewer', 'admin'] as const;
/**
 * The owner's API tokens: one emptied of scopes, and one holding each scope alone; then a reviewer's
 * and an admin's token holding every scope, which act only for their own (empty) things: roles are
 * for people signed in.
 */
export const TOKENS = ['tokenWithoutScope', 'deliveriesReadToken', 'deliveriesWriteToken', 'appsReadToken', 'reviewerToken', 'adminToken'] as const;
export const PRINCIPALS = ['anonymous', ...PEOPLE, ...TOKENS] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];

/**
 * What a principal gets. ALLOWED: no error, and the answer holds the owner's object (or is not
 * empty). HIDDEN: no error, and the owner's object is not in the answer (null or an empty list).
 * Any other value is the `extensions.code` of the first error.
 */
export type Outcome = 'ALLOWED' | 'HIDDEN' | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'BAD_USER_INPUT';

/** A row in compact form: `all` for everyone, `people` / `tokens` for the groups, then single principals. */
export type ExpectationSpec = { all?: Outcome; people?: Outcome; tokens?: Outcome } & Partial<Record<PrincipalName, Outcome>>;

export function expand(spec: ExpectationSpec): Record<PrincipalName, Outcome> {
  const group = (p: PrincipalName) => ((PEOPLE as readonly string[]).includes(p) ? spec.people : (TOKENS as readonly string[]).includes(p) ? spec.tokens : undefined);
  return Object.fromEntries(
    PRINCIPALS.map((p) => {
      const outcome = spec[p] ?? group(p) ?? spec.all;
      if (!outcome) throw new Error(`the row says nothing about ${p}`);
      return [p, outcome];
    }),
  ) as Record<PrincipalName, Outcome>;
}

/** The owner's real objects that the rows act on, built once through the API. */
export interface MatrixFixture {
  plaza: TestPlaza;
  clients: Record<PrincipalName, GraphQLTestClient>;
  receiver: WebhookReceiver;
  ownerId: string;
  /** A user outside the matrix (the buyer): grantRole and revokeRole act on them, so no principal's roles change. */
  bystanderId: string;
  apps: {
    /** Approved, free, webhook to the receiver: secrets, launches, test events, live deliveries. */
    listed: string;
    /** Approved, paid; a buyer bought it, so it has a purchase and a delivered app.purchased. */
    paid: string;
    /** Approved, free; nobody has it yet. */
    installable: string;
    /** Approved, free; every person in the matrix installed it. */
    uninstallable: string;
    /** Approved; only updateApp touches it. */
    editable: string;
    /** Pending review: visible to its owner and reviewers only. */
    underReview: string;
    /** One pending app per principal, so each approval acts on its own app. */
    toDecide: Record<PrincipalName, string>;
  };
  /** The buyer's purchase of the paid app, and the delivery of its app.purchased event. */
  purchaseId: string;
  deliveryId: string;
  /** One delivered test event per principal, so each redelivery acts on its own delivery. */
  testDeliveries: Record<PrincipalName, string>;
  notificationId: string;
  ownerInstallation: { id: string; purchaseId: string };
  /** An owner's token that only revokeApiToken touches. */
  revocableTokenId: string;
  /** The owner's webhook endpoints, one per principal: those pause, resume and update act on, and those delete acts on. */
  endpoints: { toChange: Record<PrincipalName, string>; toDelete: Record<PrincipalName, string> };
}

const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
const SEND_TEST = 'mutation($appId: ID!) { sendTestWebhook(appId: $appId) { id } }';
const INSTALL = 'mutation($appId: ID!) { installApp(appId: $appId) { id purchaseId } }';
const PURCHASE = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const CREDIT = 'mutation($userId: ID!) { creditPoints(userId: $userId, points: 100, reason: "authorization matrix") { points } }';

export async function buildMatrixFixture(plaza: TestPlaza): Promise<MatrixFixture> {
  const receiver = await WebhookReceiver.start();
  const [owner, otherDeveloper, reviewer, admin, buyer] = await Promise.all([
    plaza.signIn('owner@studio.test'),
    plaza.signIn('rival@studio.test'),
    plaza.signIn(REVIEWER_EMAIL),
    plaza.signIn(ADMIN_EMAIL),
    plaza.signIn('buyer@plaza.test'),
  ]);

  const createToken = async (scope: string) =>
    (await owner.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, { input: { name: `matrix ${scope}`, scopes: [scope] } })).createApiToken;
  const [withoutScope, deliveriesRead, deliveriesWrite, appsRead, revocable] = await Promise.all([
    createToken('apps:read'),
    createToken('deliveries:read'),
    createToken('deliveries:write'),
    createToken('apps:read'),
    createToken('apps:read'),
  ]);
  const everyScope = async (person: GraphQLTestClient) =>
    (await person.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'matrix every scope', scopes: ['apps:read', 'deliveries:read', 'deliveries:write'] } }))
      .createApiToken.token;
  const [reviewerToken, adminToken] = await Promise.all([everyScope(reviewer), everyScope(admin)]);
  // The API refuses a token without scopes; an emptied one shows that the checker needs the scope itself.
  await plaza.services.db.query("UPDATE api_tokens SET scopes = '{}' WHERE id = $1", [withoutScope.id]);

  const clients: Record<PrincipalName, GraphQLTestClient> = {
    anonymous: plaza.anonymous(),
    otherDeveloper,
    owner,
    reviewer,
    admin,
    tokenWithoutScope: owner.withToken(withoutScope.token),
    deliveriesReadToken: owner.withToken(deliveriesRead.token),
    deliveriesWriteToken: owner.withToken(deliveriesWrite.token),
    appsReadToken: owner.withToken(appsRead.token),
    reviewerToken: reviewer.withToken(reviewerToken),
    adminToken: admin.withToken(adminToken),
  };

  const submitId = async (overrides: Record<string, unknown> = {}) => (await submitApp(owner, overrides)).id as string;
  const [listed, paid, installable, uninstallable, editable, underReview, ...toDecide] = await Promise.all([
    submitId({ webhookUrl: receiver.url('/listed') }),
    submitId({ pricing: 'PAID', pricePoints: 10, webhookUrl: receiver.url('/paid') }),
    submitId(),
    submitId(),
    submitId({ webhookUrl: receiver.url('/editable') }),
    submitId(),
    ...PRINCIPALS.map(() => submitId()),
  ]);
  await Promise.all([listed, paid, installable, uninstallable, editable].map((appId) => reviewer.ok(DECIDE, { input: { appId, outcome: 'APPROVED' } })));

  // Points for the buyer and for every person, so purchaseApp is decided by access, not by a balance.
  await Promise.all([buyer, ...PEOPLE.map((p) => clients[p])].map((client) => admin.ok(CREDIT, { userId: client.userId })));
  const purchaseId = (await buyer.ok<{ purchaseApp: { purchaseId: string } }>(PURCHASE, { appId: paid })).purchaseApp.purchaseId;
  const installations = await Promise.all(
    PEOPLE.map(async (p) => (await clients[p].ok<{ installApp: { id: string; purchaseId: string } }>(INSTALL, { appId: uninstallable })).installApp),
  );
  const ownerInstallation = installations[PEOPLE.indexOf('owner')];
  if (!ownerInstallation) throw new Error('PEOPLE must include the owner');

  const testDeliveries = await Promise.all(PRINCIPALS.map(async () => (await owner.ok<{ sendTestWebhook: { id: string } }>(SEND_TEST, { appId: listed })).sendTestWebhook.id));
  const { webhookDeliveries } = await owner.ok<{ webhookDeliveries: { edges: { node: { id: string } }[] } }>(
    'query($appId: ID!) { webhookDeliveries(filter: { appId: $appId }) { edges { node { id } } } }',
    { appId: paid },
  );
  const deliveryId = first(webhookDeliveries.edges, "the paid app's purchase delivery").node.id;
  // Settled deliveries, so no scheduled attempt runs while a row reads or redelivers them.
  await Promise.all([deliveryId, ...testDeliveries].map((id) => waitForDelivery(owner, id, isFinal)));

  // Webhook endpoints of the editable app's kind, one per principal and row kind, so that one row's pause or delete
  // never meets another's: those pausing, resuming and updating, and those deleted (WEBHOOK_ENDPOINTS_PER_APP apart).
  const endpointApps = await Promise.all([0, 1, 2].map(() => submitId()));
  const newEndpoint = async (appId: string) =>
    (
      await owner.ok<{ createWebhookEndpoint: { id: string } }>('mutation($appId: ID!, $url: String!) { createWebhookEndpoint(appId: $appId, input: { url: $url }) { id } }', {
        appId,
        url: receiver.url('/endpoint'),
      })
    ).createWebhookEndpoint.id;
  const endpointsToChange: string[] = [];
  const endpointsToDelete: string[] = [];
  for (const [i] of PRINCIPALS.entries()) {
    endpointsToChange.push(await newEndpoint(endpointApps[i % 3]!));
    endpointsToDelete.push(await newEndpoint(endpointApps[(i + 1) % 3]!));
  }

  // A reveal on record, so the paid app's secret audit has something to show its owner.
  await owner.ok('mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }', { appId: paid });

  const { notifications } = await owner.ok<{ notifications: { edges: { node: { id: string } }[] } }>('{ notifications(first: 1) { edges { node { id } } } }');

  return {
    plaza,
    clients,
    receiver,
    ownerId: owner.userId,
    bystanderId: buyer.userId,
    apps: {
      listed,
      paid,
      installable,
      uninstallable,
      editable,
      underReview,
      toDecide: Object.fromEntries(PRINCIPALS.map((p, i) => [p, toDecide[i]])) as Record<PrincipalName, string>,
    },
    purchaseId,
    deliveryId,
    testDeliveries: Object.fromEntries(PRINCIPALS.map((p, i) => [p, testDeliveries[i]])) as Record<PrincipalName, string>,
    notificationId: first(notifications.edges, "a notification of the owner's").node.id,
    ownerInstallation,
    revocableTokenId: revocable.id,
    endpoints: {
      toChange: Object.fromEntries(PRINCIPALS.map((p, i) => [p, endpointsToChange[i]])) as Record<PrincipalName, string>,
      toDelete: Object.fromEntries(PRINCIPALS.map((p, i) => [p, endpointsToDelete[i]])) as Record<PrincipalName, string>,
    },
  };
}

/** One operation, called as every principal would call it against the owner's objects. */
export interface MatrixRow {
  document: string;
  variables?: (f: MatrixFixture, principal: PrincipalName) => Record<string, unknown>;
  /** The part of `data` that is the answer; the operation's field unless said otherwise. */
  pick?: (data: Record<string, any>) => unknown;
  /** The owner's object whose presence in the answer tells ALLOWED from HIDDEN. */
  reveals?: (f: MatrixFixture) => string;
  expect: ExpectationSpec;
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object' && Array.isArray((value as { edges?: unknown[] }).edges)) return (value as { edges: unknown[] }).edges.length === 0;
  return false;
}

function outcomeOfAnswer(row: MatrixRow, f: MatrixFixture, value: unknown): Outcome {
  if (row.reveals) return JSON.stringify(value).includes(row.reveals(f)) ? 'ALLOWED' : 'HIDDEN';
  return isEmpty(value) ? 'HIDDEN' : 'ALLOWED';
}

export async function observeRequest(f: MatrixFixture, operation: string, row: MatrixRow, principal: PrincipalName): Promise<string> {
  const result = await f.clients[principal].request(row.document, row.variables?.(f, principal));
  const [error] = result.errors ?? [];
  if (error) return error.extensions?.code ?? `no code: ${error.message}`;
  const data = result.data ?? {};
  return outcomeOfAnswer(row, f, row.pick ? row.pick(data) : data[operation]);
}

/**
 * Opens a real graphql-ws connection and subscribes. Accepted means the server now holds one more
 * live subscription; refused means the connection closed (4403: no valid credential, recorded as
 * UNAUTHENTICATED) or the subscribe answered with an error. Callers run these one at a time, so the
 * subscription count belongs to this call alone.
 */
export async function observeSubscription(f: MatrixFixture, row: MatrixRow, principal: PrincipalName, openSockets: Client[]): Promise<string> {
  const pubSub = f.plaza.services.pubSub;
  const before = pubSub.subscriptionCount;
  const socket = f.clients[principal].websocket();
  openSockets.push(socket);
  return new Promise<string>((resolve) => {
    let settled = false;
    const settle = (outcome: string) => {
      if (!settled) resolve(outcome);
      settled = true;
    };
    socket.subscribe(
      { query: row.document, variables: row.variables?.(f, principal) },
      {
        next: (value) => {
          const [error] = value.errors ?? [];
          settle(error ? ((error.extensions?.code as string) ?? `no code: ${error.message}`) : 'ALLOWED');
        },
        error: (err) => {
          const close = err as { code?: number; reason?: string };
          if (close.code === 4403) return settle('UNAUTHENTICATED');
          const errors = err as { extensions?: { code?: string }; message?: string }[];
          const [error] = Array.isArray(errors) ? errors : [];
          settle(error ? (error.extensions?.code ?? `no code: ${error.message}`) : `closed ${close.code} ${close.reason ?? ''}`);
        },
        complete: () => settle('completed without an answer'),
      },
    );
    // Or live on the server with no answer yet: one more subscription held.
    vi.waitFor(
      () => {
        if (!settled && pubSub.subscriptionCount <= before) throw new Error('not yet');
      },
      { timeout: 5000, interval: 10 },
    ).then(
      () => settle('ALLOWED'),
      () => settle('neither accepted nor refused within 5 s'),
    );
  });
}
