import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';

// Issue 15, items 3 and 6: nobody reviews their own app; a token is its scopes, not its owner's roles.

const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
const APP = 'query($id: ID!) { app(id: $id) { id status webhookUrl reviewDecisions { id } preChecks { status } } }';
const TOKENS = '{ myApiTokens(first: 100) { edges { cursor } } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [developer, reviewer, admin] = await Promise.all([plaza.signIn('duties@studio.test'), plaza.signIn(REVIEWER_EMAIL), plaza.signIn(ADMIN_EMAIL)]);
});

const statusOf = async (appId: string) => (await developer.ok<{ app: { status: string } }>('query($id: ID!) { app(id: $id) { status } }', { id: appId })).app?.status;
const tokenOf = async (person: GraphQLTestClient, scopes: string[]) =>
  person.withToken((await person.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, { input: { name: 'integration', scopes } })).createApiToken.token);

describe('decideReview on one’s own app', () => {
  it.each([
    ['a reviewer', () => reviewer, () => admin],
    ['an admin', () => admin, () => reviewer],
  ])('is FORBIDDEN for %s, changes nothing, and another reviewer decides it', async (_, self, other) => {
    const app = await submitApp(self(), {});
    for (const input of [
      { appId: app.id, outcome: 'APPROVED' },
      { appId: app.id, outcome: 'REJECTED', reasons: ['OTHER'], note: 'mine' },
    ]) {
      const error = await self().error(DECIDE, { input });
      expect(error.extensions?.code).toBe('FORBIDDEN');
      expect(error.message).toBe('You cannot decide the review of your own app; another reviewer must decide it');
    }
    const { app: after } = await self().ok<{ app: { status: string; reviewDecisions: unknown[] } }>('query($id: ID!) { app(id: $id) { status reviewDecisions { id } } }', {
      id: app.id,
    });
    expect(after).toEqual({ status: 'PENDING_REVIEW', reviewDecisions: [] });
    await other().ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    expect((await self().ok<{ app: { status: string } }>('query($id: ID!) { app(id: $id) { status } }', { id: app.id })).app.status).toBe('APPROVED');
  });
});

describe('API tokens of reviewers and admins', () => {
  it('read no other developer’s unreleased app, nor its review details, with apps:read', async () => {
    const pending = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/private' });
    const listed = await submitApp(developer, { webhookUrl: 'https://hooks.example.com/listed' });
    await reviewer.ok(DECIDE, { input: { appId: listed.id, outcome: 'APPROVED' } });
    // Signed in, a reviewer sees the app under review (that is the job).
    expect((await reviewer.ok<{ app: { id: string } | null }>(APP, { id: pending.id })).app?.id).toBe(pending.id);
    for (const token of [await tokenOf(reviewer, ['apps:read']), await tokenOf(admin, ['apps:read', 'deliveries:read', 'deliveries:write'])]) {
      expect((await token.ok<{ app: unknown }>(APP, { id: pending.id })).app).toBeNull();
      // The listed app reads as the public sees it: no webhook URL, no review history, no pre-checks.
      expect((await token.ok<{ app: unknown }>(APP, { id: listed.id })).app).toEqual({ id: listed.id, status: 'APPROVED', webhookUrl: null, reviewDecisions: [], preChecks: null });
    }
    expect(await statusOf(pending.id)).toBe('PENDING_REVIEW');
  });

  it('cannot use their owner’s role: review queue, decisions, admin operations', async () => {
    const app = await submitApp(developer);
    const reviewerToken = await tokenOf(reviewer, ['apps:read', 'deliveries:read', 'deliveries:write']);
    const adminToken = await tokenOf(admin, ['apps:read', 'deliveries:read', 'deliveries:write']);
    expect((await reviewerToken.error('{ reviewQueue { edges { node { id } } } }')).extensions?.code).toBe('FORBIDDEN');
    expect((await reviewerToken.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } })).extensions?.code).toBe('FORBIDDEN');
    expect(
      (await adminToken.error('mutation($userId: ID!) { creditPoints(userId: $userId, points: 5, reason: "token") { points } }', { userId: developer.userId })).extensions?.code,
    ).toBe('FORBIDDEN');
    expect(await statusOf(app.id)).toBe('PENDING_REVIEW');
    // The token still does what its scopes say for its owner's own things.
    const own = await submitApp(reviewer);
    const mine = (await reviewerToken.ok<{ myApps: { id: string }[] }>('{ myApps { id } }')).myApps.map((a) => a.id);
    expect(mine).toContain(own.id);
    expect(mine).not.toContain(app.id);
    expect((await reviewerToken.ok<{ app: { id: string } }>(APP, { id: own.id })).app.id).toBe(own.id);
  });
});

describe('createApiToken scopes', () => {
  it.each(['toString', '__proto__', 'hasOwnProperty', 'constructor', 'valueOf'])('refuses %s, which every object has but the scope table does not list', async (scope) => {
    const before = (await developer.ok<{ myApiTokens: { edges: unknown[] } }>(TOKENS)).myApiTokens.edges.length;
    const error = await developer.error(CREATE_TOKEN, { input: { name: 'x', scopes: ['apps:read', scope] } });
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'scopes' });
    expect(error.message).toContain(`Unknown scope ${scope}`);
    expect((await developer.ok<{ myApiTokens: { edges: unknown[] } }>(TOKENS)).myApiTokens.edges.length).toBe(before);
  });
});
