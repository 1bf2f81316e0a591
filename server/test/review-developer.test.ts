import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { OTHER_APPS_SHOWN } from '../src/modules/review/app-developer.resolver.js';

// App.developer: who made an app, as a reviewer weighs a submission (their other apps with their states, how
// the decisions on their apps came out); reviewers and admins only.

const DEVELOPER = `developer { id name email otherApps { id name status } decisions { approved rejected } }`;
const APP_DEVELOPER = `query($id: ID!) { app(id: $id) { id ${DEVELOPER} } }`;
const QUEUE_DEVELOPERS = `{ reviewQueue(first: 100) { edges { node { id ${DEVELOPER} } } } }`;

let plaza: TestPlaza;
let maker: GraphQLTestClient;
let reviewer: GraphQLTestClient;
const ids = { approved: '', rejected: '', pending: '', newcomersApp: '' };

beforeAll(async () => {
  plaza = await startTestPlaza();
  maker = await plaza.signIn('ana.nguyen+plaza@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  ids.approved = (await submitApp(maker, { name: 'Atlas' })).id;
  await reviewer.ok(DECIDE, { input: { appId: ids.approved, outcome: 'APPROVED' } });
  ids.rejected = (await submitApp(maker, { name: 'Bingo' })).id;
  await reviewer.ok(DECIDE, { input: { appId: ids.rejected, outcome: 'REJECTED', reasons: ['INVALID_ICON'] } });
  ids.pending = (await submitApp(maker, { name: 'Cards' })).id;
  const newcomer = await plaza.signIn('first.timer@studio.test');
  ids.newcomersApp = (await submitApp(newcomer, { name: 'Debut' })).id;
});

describe('App.developer', () => {
  it('tells a reviewer who made the app: name, address, their other apps newest first with their states, and their decisions', async () => {
    const { app } = await reviewer.ok<{ app: any }>(APP_DEVELOPER, { id: ids.pending });
    expect(app.developer).toEqual({
      id: expect.any(String),
      name: 'ana.nguyen',
      email: 'ana.nguyen+plaza@studio.test',
      otherApps: [
        { id: ids.rejected, name: 'Bingo', status: 'REJECTED' },
        { id: ids.approved, name: 'Atlas', status: 'APPROVED' },
      ],
      decisions: { approved: 1, rejected: 1 },
    });
  });

  it('answers a queue of several developers, each with their own record', async () => {
    const admin = await plaza.signIn(ADMIN_EMAIL);
    const { reviewQueue } = await admin.ok<{ reviewQueue: any }>(QUEUE_DEVELOPERS);
    const byApp = new Map(reviewQueue.edges.map((edge: any) => [edge.node.id, edge.node.developer]));
    expect(byApp.get(ids.pending)).toMatchObject({ name: 'ana.nguyen', decisions: { approved: 1, rejected: 1 } });
    expect(byApp.get(ids.newcomersApp)).toMatchObject({ name: 'first.timer', otherApps: [], decisions: { approved: 0, rejected: 0 } });
  });

  it('shows the 20 newest other apps of a developer with more, and reads every queued developer’s together', async () => {
    const prolific = await plaza.signIn('prolific@studio.test');
    const made: string[] = [];
    for (let i = 0; i < OTHER_APPS_SHOWN + 2; i++) made.push((await submitApp(prolific, { name: `Tool ${i}` })).id);
    const asked = made.at(-1)!;
    const { app } = await reviewer.ok<{ app: any }>(APP_DEVELOPER, { id: asked });
    // Newest first, the app asked from left out, and the oldest one past the twenty.
    expect(app.developer.otherApps.map((other: { id: string }) => other.id)).toEqual(made.slice(1, -1).reverse());

    const reads = vi.spyOn(plaza.services.apps, 'newestOfEach');
    try {
      const { reviewQueue } = await reviewer.ok<{ reviewQueue: any }>(QUEUE_DEVELOPERS);
      const developers = new Set(reviewQueue.edges.map((edge: any) => edge.node.developer.id));
      expect(developers.size).toBeGreaterThanOrEqual(3);
      // One read for the whole page, however many developers it names.
      expect(reads).toHaveBeenCalledTimes(1);
      expect(new Set(reads.mock.calls[0]![0])).toEqual(developers);
    } finally {
      reads.mockRestore();
    }
  });

  it('is refused to the developer themselves, another developer, a buyer and the public, and to a reviewer’s API token', async () => {
    const buyer = await plaza.signIn('buyer@shop.test');
    const other = await plaza.signIn('other.maker@studio.test');
    const { token } = (await reviewer.ok<{ createApiToken: { token: string } }>(`mutation { createApiToken(input: { name: "review bot", scopes: ["apps:read"] }) { token } }`))
      .createApiToken;
    // The approved app: everyone may read its listing, so only the developer field is refused.
    for (const [who, client] of [
      ['owner', maker],
      ['other developer', other],
      ['buyer', buyer],
      ['public', plaza.anonymous()],
      ['reviewer’s token', plaza.anonymous().withToken(token)],
    ] as const) {
      const answer = await client.request<{ app: any }>(APP_DEVELOPER, { id: ids.approved });
      expect(
        answer.errors?.map((error) => [error.extensions?.code, (error as { path?: string[] }).path?.join('.')]),
        who,
      ).toEqual([['FORBIDDEN', 'app.developer']]);
      expect(answer.data?.app, who).toEqual({ id: ids.approved, developer: null });
    }
  });
});
