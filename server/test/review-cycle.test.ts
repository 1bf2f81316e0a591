import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { REVIEWER_EMAIL, ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { subscribe, type GraphQLTestClient } from './helpers/graphql-client.js';
import { APP_FIELDS, DECIDE, UPDATE_APP, submitApp } from './helpers/factories.js';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let developerSocket: Client;

const NOTIFICATION_ADDED = 'subscription { notificationAdded { id kind message appId createdAt readAt } }';
const STORE = `query($search: String) { storeApps(search: $search, first: 10) { edges { node { ${APP_FIELDS} } } } }`;
const QUEUE =
  'query($first: Int, $after: String) { reviewQueue(first: $first, after: $after) { edges { cursor node { id submittedAt reviewDueAt reviewOverdue } } pageInfo { hasNextPage endCursor } } }';

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('maker@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  developerSocket = developer.websocket();
});
afterAll(() => developerSocket?.dispose());

describe('the review cycle', () => {
  it('rejects with reasons, takes a resubmission, approves, and tells the developer live each time', async () => {
    const live = subscribe<{ notificationAdded: any }>(developerSocket, NOTIFICATION_ADDED);
    await plaza.waitForSubscriptions(1);
    const app = await submitApp(developer, { name: 'Lucky Quiz', pricing: 'PAID', pricePoints: 30 });

    const { reviewQueue } = await reviewer.ok<{ reviewQueue: any }>(QUEUE, { first: 100 });
    expect(reviewQueue.edges.map((e: any) => e.node.id)).toContain(app.id);

    const { decideReview: rejection } = await reviewer.ok<{ decideReview: any }>(DECIDE, {
      input: { appId: app.id, outcome: 'REJECTED', reasons: ['BROKEN_IFRAME_URL', 'OTHER'], note: 'The quiz never finishes loading.' },
    });
    expect(rejection).toMatchObject({ appId: app.id, outcome: 'REJECTED', reasons: ['BROKEN_IFRAME_URL', 'OTHER'], note: 'The quiz never finishes loading.' });

    const [rejected] = await live.waitFor(1);
    expect(rejected.notificationAdded).toMatchObject({ kind: 'APP_REJECTED', appId: app.id, readAt: null });
    expect(rejected.notificationAdded.message).toContain('does not load in the iframe');
    expect(rejected.notificationAdded.message).toContain('The quiz never finishes loading.');

    const afterRejection = (await developer.ok<{ app: any }>(`query($id: ID!) { app(id: $id) { ${APP_FIELDS} } }`, { id: app.id })).app;
    expect(afterRejection.status).toBe('REJECTED');
    expect(afterRejection.reviewDecisions).toHaveLength(1);
    expect(afterRejection.reviewDecisions[0].reasons).toEqual(['BROKEN_IFRAME_URL', 'OTHER']);
    // Not listed while rejected.
    expect((await plaza.anonymous().ok<{ storeApps: any }>(STORE, { search: 'Lucky Quiz' })).storeApps.edges).toHaveLength(0);

    const { updateApp: resubmitted } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: { appUrl: 'https://apps.example.com/quiz-fixed/' } });
    expect(resubmitted.status).toBe('PENDING_REVIEW');
    expect(Date.parse(resubmitted.submittedAt)).toBeGreaterThan(Date.parse(app.submittedAt));
    expect(Date.parse(resubmitted.reviewDueAt) - Date.parse(resubmitted.submittedAt)).toBe(24 * 3600 * 1000);

    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: resubmitted.revision } });
    const [, approved] = await live.waitFor(2);
    expect(approved.notificationAdded).toMatchObject({ kind: 'APP_APPROVED', appId: app.id });

    const listed = (await plaza.anonymous().ok<{ storeApps: any }>(STORE, { search: 'Lucky Quiz' })).storeApps.edges;
    expect(listed.map((e: any) => e.node)).toEqual([
      expect.objectContaining({ id: app.id, status: 'APPROVED', appUrl: 'https://apps.example.com/quiz-fixed/', pricePoints: 30, webhookUrl: null }),
    ]);

    const { notifications } = await developer.ok<{ notifications: any }>('{ notifications(first: 10) { edges { node { kind appId } } } }');
    expect(notifications.edges.map((e: any) => e.node.kind)).toEqual(['APP_APPROVED', 'APP_REJECTED']);
    live.stop();
  });

  it('sends an edited approved app back to review while the store keeps the approved version', async () => {
    const app = await submitApp(developer, { name: 'Steady Notes' });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });

    const { updateApp: edited } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: { name: 'Steady Notes Pro', shortDescription: 'Now with sync' } });
    expect(edited.status).toBe('PENDING_REVIEW');

    const publicView = (await plaza.anonymous().ok<{ app: any }>(`query($id: ID!) { app(id: $id) { name shortDescription status } }`, { id: app.id })).app;
    expect(publicView).toEqual({ name: 'Steady Notes', shortDescription: 'Daily trivia for the whole family', status: 'APPROVED' });

    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['MISLEADING_DESCRIPTION'] } });
    // Rejecting the edit does not unlist the approved version.
    const store = (await plaza.anonymous().ok<{ storeApps: any }>(STORE, { search: 'Steady Notes' })).storeApps.edges;
    expect(store.map((e: any) => e.node.name)).toEqual(['Steady Notes']);

    await developer.ok(UPDATE_APP, { id: app.id, input: { shortDescription: 'Notes that sync across devices' } });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const after = (await plaza.anonymous().ok<{ storeApps: any }>(STORE, { search: 'Steady Notes' })).storeApps.edges;
    expect(after.map((e: any) => [e.node.name, e.node.shortDescription])).toEqual([['Steady Notes Pro', 'Notes that sync across devices']]);
  });

  it('sends an approved app back to review when its page details change; visitors see the approved details and what it receives', async () => {
    const PAGE = `query($id: ID!) { app(id: $id) { status longDescription screenshotUrls supportUrl privacyPolicyUrl receives { sessionFields webhookEvents } webhookEndpoints { url } } }`;
    const app = await submitApp(developer, {
      longDescription: 'Plan a week of meals.',
      screenshotUrls: ['https://apps.example.com/plan/1.png'],
      webhookUrl: 'https://hooks.example.com/plan',
      webhookEvents: ['APP_REFUNDED', 'APP_PURCHASED'],
    });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });

    for (const change of [
      { longDescription: 'Plan a month of meals.' },
      { screenshotUrls: ['https://apps.example.com/plan/1.png', 'https://apps.example.com/plan/2.png'] },
      { supportUrl: 'https://apps.example.com/plan/help' },
      { privacyPolicyUrl: 'https://apps.example.com/plan/privacy' },
    ]) {
      const { updateApp } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: change });
      expect(updateApp.status, JSON.stringify(change)).toBe('PENDING_REVIEW');
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    }
    // The same screenshots again change nothing and send nothing to review.
    const { updateApp: same } = await developer.ok<{ updateApp: any }>(UPDATE_APP, {
      id: app.id,
      input: { screenshotUrls: ['https://apps.example.com/plan/1.png', 'https://apps.example.com/plan/2.png'] },
    });
    expect(same.status).toBe('APPROVED');

    await developer.ok(UPDATE_APP, { id: app.id, input: { longDescription: 'Plan a year of meals.', screenshotUrls: [] } });
    const visitor = (await plaza.anonymous().ok<{ app: any }>(PAGE, { id: app.id })).app;
    expect(visitor).toEqual({
      status: 'APPROVED',
      longDescription: 'Plan a month of meals.',
      screenshotUrls: ['https://apps.example.com/plan/1.png', 'https://apps.example.com/plan/2.png'],
      supportUrl: 'https://apps.example.com/plan/help',
      privacyPolicyUrl: 'https://apps.example.com/plan/privacy',
      // The event names only: where they go is the developer's.
      receives: { sessionFields: ['token', 'userId', 'locale', 'theme'], webhookEvents: ['APP_PURCHASED', 'APP_REFUNDED'] },
      webhookEndpoints: [],
    });
    const own = (await developer.ok<{ app: any }>(PAGE, { id: app.id })).app;
    expect(own).toMatchObject({ status: 'PENDING_REVIEW', longDescription: 'Plan a year of meals.', screenshotUrls: [] });
  });

  it('shows no page details for a listing approved before they existed, whatever its waiting version has', async () => {
    const app = await submitApp(developer);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    // As the previous release approved it: a listing without the details' keys; then an edit that adds them waits for review.
    await plaza.services.db.query(
      `UPDATE apps SET published_listing = published_listing - 'longDescription' - 'screenshotUrls' - 'supportUrl' - 'privacyPolicyUrl' WHERE id = $1`,
      [app.id],
    );
    await developer.ok(UPDATE_APP, { id: app.id, input: { longDescription: 'Not reviewed yet', supportUrl: 'https://apps.example.com/help' } });
    const visitor = (
      await plaza.anonymous().ok<{ app: any }>(`query($id: ID!) { app(id: $id) { status longDescription screenshotUrls supportUrl privacyPolicyUrl } }`, { id: app.id })
    ).app;
    expect(visitor).toEqual({ status: 'APPROVED', longDescription: null, screenshotUrls: [], supportUrl: null, privacyPolicyUrl: null });
  });

  it('changes the webhook URL of an approved app without a new review', async () => {
    const app = await submitApp(developer);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    const { updateApp } = await developer.ok<{ updateApp: any }>(UPDATE_APP, { id: app.id, input: { webhookUrl: 'https://hooks.example.com/new' } });
    expect(updateApp).toMatchObject({ status: 'APPROVED', webhookUrl: 'https://hooks.example.com/new' });
  });

  it('needs a reason to reject, a note for OTHER, and no reasons to approve; a bad decision changes nothing', async () => {
    const app = await submitApp(developer);
    const cases: [Record<string, unknown>, string][] = [
      [{ outcome: 'REJECTED' }, 'reasons'],
      [{ outcome: 'REJECTED', reasons: [] }, 'reasons'],
      [{ outcome: 'REJECTED', reasons: ['OTHER'] }, 'note'],
      [{ outcome: 'REJECTED', reasons: ['OTHER'], note: '   ' }, 'note'],
      [{ outcome: 'APPROVED', reasons: ['INVALID_ICON'] }, 'reasons'],
      [{ outcome: 'REJECTED', reasons: ['INVALID_ICON'], note: 'n'.repeat(2001) }, 'note'],
    ];
    for (const [input, field] of cases) {
      const error = await reviewer.error(DECIDE, { input: { appId: app.id, ...input } });
      expect(error.extensions, JSON.stringify(input)).toEqual({ code: 'BAD_USER_INPUT', field });
    }
    const current = (await developer.ok<{ app: any }>(`query($id: ID!) { app(id: $id) { status reviewDecisions { id } } }`, { id: app.id })).app;
    expect(current).toEqual({ status: 'PENDING_REVIEW', reviewDecisions: [] });
  });

  it('refuses to decide an app twice, on a stale revision, or an unknown app', async () => {
    const app = await submitApp(developer);
    await developer.ok(UPDATE_APP, { id: app.id, input: { name: 'Edited while waiting' } });
    const stale = await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: app.revision } });
    expect(stale.extensions?.code).toBe('CONFLICT');

    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
    expect((await reviewer.error(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['INVALID_ICON'] } })).extensions?.code).toBe('CONFLICT');
    expect((await reviewer.error(DECIDE, { input: { appId: 'app_01ARZ3NDEKTSV4RRFFQ69G5FAV', outcome: 'APPROVED' } })).extensions?.code).toBe('NOT_FOUND');
  });

  it('lets only reviewers and admins see the queue and decide', async () => {
    const app = await submitApp(developer);
    expect((await developer.error(QUEUE)).extensions?.code).toBe('FORBIDDEN');
    expect((await developer.error(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } })).extensions?.code).toBe('FORBIDDEN');
    expect((await plaza.anonymous().error(QUEUE)).extensions?.code).toBe('UNAUTHENTICATED');
    const admin = await plaza.signIn(ADMIN_EMAIL);
    expect((await admin.ok<{ me: any }>('{ me { roles } }')).me.roles).toEqual(expect.arrayContaining(['ADMIN', 'REVIEWER', 'DEVELOPER', 'USER']));
    await admin.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  });

  it('lists the store newest approval first, paging without gaps or repeats, filtered by category and by literal search text', async () => {
    const PAGE = `query($category: String, $search: String, $first: Int, $after: String) {
      storeApps(category: $category, search: $search, first: $first, after: $after) { edges { cursor node { id name category status webhookUrl } } pageInfo { hasNextPage endCursor } } }`;
    const approvedInOrder: string[] = [];
    for (const [name, category] of [
      ['Shelfmark 0', 'travel'],
      ['Shelfmark 1', 'news'],
      ['Shelfmark 2', 'travel'],
      ['Shelfmark 3', 'news'],
      ['Shelfmark 100% Fun', 'travel'],
    ]) {
      const app = await submitApp(developer, { name, category, webhookUrl: 'https://hooks.example.com/shelf' });
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
      approvedInOrder.push(app.id);
    }
    await submitApp(developer, { name: 'Shelfmark pending', category: 'travel' });

    const pages: any[][] = [];
    let after: string | undefined;
    do {
      const { storeApps } = await plaza.anonymous().ok<{ storeApps: any }>(PAGE, { search: 'shelfmark', first: 2, after });
      pages.push(storeApps.edges.map((e: any) => e.node));
      after = storeApps.pageInfo.hasNextPage ? storeApps.pageInfo.endCursor : undefined;
    } while (after);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat().map((node) => node.id)).toEqual([...approvedInOrder].reverse());
    for (const node of pages.flat()) expect(node).toMatchObject({ status: 'APPROVED', webhookUrl: null });

    const travel = (await plaza.anonymous().ok<{ storeApps: any }>(PAGE, { category: 'Travel', search: 'shelfmark' })).storeApps.edges;
    expect(travel.map((e: any) => e.node.name)).toEqual(['Shelfmark 100% Fun', 'Shelfmark 2', 'Shelfmark 0']);
    // % and _ are what they say, not wildcards: "Shelfmark_" would otherwise match every "Shelfmark ".
    const search = async (text: string) => (await plaza.anonymous().ok<{ storeApps: any }>(PAGE, { search: text })).storeApps.edges.map((e: any) => e.node.name);
    expect(await search('mark 100%')).toEqual(['Shelfmark 100% Fun']);
    expect(await search('Shelfmark_')).toEqual([]);
  });

  it('lists the queue oldest first with due times, paging without gaps or repeats', async () => {
    const submitted: string[] = [];
    for (let i = 0; i < 5; i++) submitted.push((await submitApp(developer)).id);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { reviewQueue } = await reviewer.ok<{ reviewQueue: any }>(QUEUE, { first: 2, after });
      seen.push(...reviewQueue.edges.map((e: any) => e.node.id));
      for (const { node } of reviewQueue.edges) expect(Date.parse(node.reviewDueAt) - Date.parse(node.submittedAt)).toBe(86_400_000);
      if (!reviewQueue.pageInfo.hasNextPage) break;
      after = reviewQueue.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    // Oldest first: our five appear in submission order.
    expect(seen.filter((id) => submitted.includes(id))).toEqual(submitted);
  });

  it('refuses a subscription connection without a valid token (4403)', async () => {
    const anonymousSocket = plaza.anonymous().websocket();
    const live = subscribe(anonymousSocket, NOTIFICATION_ADDED);
    await expect(live.waitFor(1, 3000)).rejects.toThrow(/4403|Forbidden/);
    await anonymousSocket.dispose();
  });
});
