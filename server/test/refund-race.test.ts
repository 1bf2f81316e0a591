import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

// Issue 24, item 1: a buyer reinstalling in a loop while an admin refunds must never keep the app.
const TRIALS = 100;
const PRICE = 3;

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const INSTALL = 'mutation($appId: ID!) { installApp(appId: $appId) { id } }';
const UNINSTALL = 'mutation($appId: ID!) { uninstallApp(appId: $appId) { id } }';
const REFUND = 'mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId) { status } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!, $reason: String!) { creditPoints(userId: $userId, points: $points, reason: $reason) { points } }';
const LIBRARY = '{ myLibrary { appId } }';
const LAUNCH = 'mutation($appId: ID!) { launchApp(appId: $appId) { token } }';

let plaza: TestPlaza;
let admin: GraphQLTestClient;
let buyer: GraphQLTestClient;
let appId: string;

beforeAll(async () => {
  // The loops below send a few thousand requests from one address within the minute.
  plaza = await startTestPlaza({ RATE_LIMIT_PER_ADDRESS: '1000000', WEBHOOK_RETRY_SCHEDULE: '1h' });
  const developer = await plaza.signIn('racer@studio.test');
  const reviewer = await plaza.signIn(REVIEWER_EMAIL);
  admin = await plaza.signIn(ADMIN_EMAIL);
  const receiver = await WebhookReceiver.start();
  const app = await submitApp(developer, { pricing: 'PAID', pricePoints: PRICE, webhookUrl: receiver.url() });
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  appId = app.id;
  buyer = await plaza.signIn('looping-buyer@users.test');
  await admin.ok(CREDIT, { userId: buyer.userId, points: PRICE * TRIALS, reason: 'race test balance' });
});

/** What the buyer still has of the app: in myLibrary, launchApp answering, an active installation row. */
async function accessLeft(): Promise<string[]> {
  const left: string[] = [];
  const { myLibrary } = await buyer.ok<{ myLibrary: { appId: string }[] }>(LIBRARY);
  if (myLibrary.some((item) => item.appId === appId)) left.push('in myLibrary');
  const launch = await buyer.request(LAUNCH, { appId });
  if (!launch.errors?.length) left.push('launchApp answered');
  else if (launch.errors[0]?.extensions?.code !== 'FORBIDDEN') throw new Error(`launchApp failed unexpectedly: ${JSON.stringify(launch.errors)}`);
  const [{ n }] = await plaza.services.db.query('SELECT count(*)::int AS n FROM installations WHERE app_id = $1 AND user_id = $2 AND uninstalled_at IS NULL', [
    appId,
    buyer.userId,
  ]);
  if (n > 0) left.push(`${n} active installation(s)`);
  return left;
}

describe('a refund racing the buyer’s uninstall/install loop', () => {
  it(`ends access every time (${TRIALS} trials), and no app.installed of the purchase follows its app.refunded`, { timeout: 600_000 }, async () => {
    const survivors: { trial: number; purchaseId: string; left: string[] }[] = [];
    const refundedPurchases: string[] = [];
    let installsDuringRefunds = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const { purchaseApp } = await buyer.ok<{ purchaseApp: { purchaseId: string } }>(BUY, { appId });
      let looping = true;
      let cycles = 0;
      const loop = (async () => {
        while (looping) {
          await buyer.request(UNINSTALL, { appId });
          const installed = await buyer.request(INSTALL, { appId });
          if (!installed.errors?.length) installsDuringRefunds += 1;
          cycles += 1;
        }
      })();
      // The refund lands at whatever point of an uninstall/install cycle the loop has reached.
      await vi.waitFor(() => expect(cycles).toBeGreaterThan(trial % 3), { timeout: 30_000, interval: 1 });
      await admin.ok(REFUND, { purchaseId: purchaseApp.purchaseId });
      const rightAfter = await accessLeft();
      looping = false;
      await loop;
      // An install that read the purchase before the refund but committed after it shows up here.
      const afterLoop = await accessLeft();
      if (rightAfter.length || afterLoop.length) survivors.push({ trial, purchaseId: purchaseApp.purchaseId, left: [...new Set([...rightAfter, ...afterLoop])] });
      refundedPurchases.push(purchaseApp.purchaseId);
      // The next trial buys again from nothing installed.
      if (afterLoop.length) await buyer.request(UNINSTALL, { appId });
    }
    console.log(`refund race: ${TRIALS} trials, ${installsDuringRefunds} reinstalls in the loops, ${survivors.length} survivors`);
    expect.soft(survivors).toEqual([]);
    expect(installsDuringRefunds).toBeGreaterThan(TRIALS); // the loops really were reinstalling

    // The outbox, in its order (event ids are time-ordered): per refunded purchase, the reinstalls made of it.
    const events: { id: string; payload: string }[] = await plaza.services.db.query('SELECT id, payload FROM webhook_events ORDER BY id');
    const reinstallsOf: { purchase_id: string; original_purchase_id: string }[] = await plaza.services.db.query(
      'SELECT purchase_id, original_purchase_id FROM installations WHERE app_id = $1 AND user_id = $2 AND purchase_id <> original_purchase_id',
      [appId, buyer.userId],
    );
    const originalOf = new Map(reinstallsOf.map((row) => [row.purchase_id, row.original_purchase_id]));
    const refundedAt = new Map<string, number>();
    const lateInstalls: string[] = [];
    events.forEach(({ payload }, position) => {
      const body = JSON.parse(payload) as { event: string; purchase_id: string };
      if (body.event === 'app.refunded') refundedAt.set(body.purchase_id, position);
      if (body.event !== 'app.installed') return;
      const original = originalOf.get(body.purchase_id);
      if (original && refundedAt.has(original)) lateInstalls.push(`${body.purchase_id} (reinstall of ${original}) after its app.refunded`);
    });
    expect(new Set(refundedAt.keys())).toEqual(new Set(refundedPurchases));
    expect(lateInstalls).toEqual([]);
  });
});
