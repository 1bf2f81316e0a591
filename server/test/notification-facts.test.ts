import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { subscribe, type GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { NotificationFacts1796000021000 } from '../src/platform/migrations/1796000021000-NotificationFacts.js';

// A notification carries the facts its English message was written from, so the portal can say it in
// its reader's language (issue 17, finding 3).
const FIELDS = 'kind message appId appName reasons note since lastError failedDeliveries';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let socket: Client;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('facts@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  socket = developer.websocket();
});
afterAll(() => socket?.dispose());

async function listed(): Promise<any[]> {
  const { notifications } = await developer.ok<{ notifications: { edges: { node: any }[] } }>(`{ notifications(first: 20) { edges { node { id ${FIELDS} } } } }`);
  return notifications.edges.map((edge) => edge.node);
}

describe('notification facts', () => {
  it('a rejection carries the app name, the reasons and the note, live and listed; an approval the app name only', async () => {
    const live = subscribe<{ notificationAdded: any }>(socket, `subscription { notificationAdded { ${FIELDS} } }`);
    await plaza.waitForSubscriptions(1);
    const app = await submitApp(developer, { name: 'Sổ Tay Nấu Ăn' });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['INVALID_ICON', 'OTHER'], note: 'The menu overlaps the recipe.' } });

    const rejection = {
      kind: 'APP_REJECTED',
      appId: app.id,
      appName: 'Sổ Tay Nấu Ăn',
      reasons: ['INVALID_ICON', 'OTHER'],
      note: 'The menu overlaps the recipe.',
      since: null,
      lastError: null,
      failedDeliveries: null,
    };
    const [pushed] = await live.waitFor(1);
    expect(pushed.notificationAdded).toMatchObject(rejection);
    // The English message stays as it was, for API clients and e-mail.
    expect(pushed.notificationAdded.message).toContain('"Sổ Tay Nấu Ăn" was rejected: the icon is not a valid image');
    expect(await listed()).toEqual([expect.objectContaining(rejection)]);

    const { updateApp } = await developer.ok<{ updateApp: { revision: number } }>(
      'mutation($id: ID!) { updateApp(id: $id, input: { shortDescription: "Recipes, fixed" }) { revision } }',
      { id: app.id },
    );
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED', revision: updateApp.revision } });
    const [, approved] = await live.waitFor(2);
    expect(approved.notificationAdded).toMatchObject({ kind: 'APP_APPROVED', appName: 'Sổ Tay Nấu Ăn', reasons: null, note: null });
    live.stop();
  });

  it('a rejection with the longest note, in a script of 3-byte characters, is decided and arrives live whole (too large for NOTIFY twice over: sent by id)', async () => {
    // The previous test's subscription may still be ending: wait for it, so the count below is this one's.
    await expect.poll(() => plaza.services.pubSub.subscriptionCount, { timeout: 5000, interval: 20 }).toBe(0);
    const live = subscribe<{ notificationAdded: any }>(socket, `subscription { notificationAdded { ${FIELDS} } }`);
    await plaza.waitForSubscriptions(1);
    const app = await submitApp(developer, { name: 'Ghi Chú Dài' });
    // 2000 characters of 3-byte UTF-8 (Japanese): 6 KB, written in the message and again as the note.
    const note = 'アイコンが小さいとぼやけます。'.repeat(150).slice(0, 2000);
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['OTHER'], note } });

    const [pushed] = await live.waitFor(1);
    expect(pushed.notificationAdded).toMatchObject({ kind: 'APP_REJECTED', appId: app.id, appName: 'Ghi Chú Dài', reasons: ['OTHER'], note });
    expect(pushed.notificationAdded.message).toContain(note);
    live.stop();
  });

  it('the migration fills in the app name and a rejection’s reasons and note of notifications written before it', async () => {
    const app = await submitApp(developer, { name: 'Old Notice' });
    await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'REJECTED', reasons: ['MISLEADING_DESCRIPTION'] } });
    const { db } = plaza.services;
    // As a notification was stored before the facts: message only.
    await db.query(`UPDATE notifications SET app_name = NULL, reasons = NULL, note = NULL WHERE app_id = $1`, [app.id]);
    expect((await listed()).find((n) => n.appId === app.id)).toMatchObject({ appName: null, reasons: null });

    const migration = new NotificationFacts1796000021000();
    const runner = db.createQueryRunner();
    try {
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect((await listed()).find((n) => n.appId === app.id)).toMatchObject({ kind: 'APP_REJECTED', appName: 'Old Notice', reasons: ['MISLEADING_DESCRIPTION'], note: null });
  });
});
