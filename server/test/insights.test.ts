import { beforeAll, describe, expect, it, vi } from 'vitest';
import { DECIDE, submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { isFinal, waitForDelivery } from './helpers/webhooks.js';
import { StatsWindow } from '../src/modules/insights/insights.types.js';
import { DeliveryRollups1796000017000 } from '../src/platform/migrations/1796000017000-DeliveryRollups.js';
import { histogramPercentile, LATENCY_SLOTS, latencySlot } from '../src/platform/latency-histogram.js';
import { pruneOldRollups } from '../src/modules/webhooks/attempt-retention.js';

// Issue 17's charts: the numbers behind them, from real purchases whose webhooks real receivers answer.
const POINT_VALUE_VND = 1000;
const PRICE = 30;
const SHARE = Math.floor((PRICE * POINT_VALUE_VND * 80) / 100);

const BUY = 'mutation($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const REFUND = 'mutation($purchaseId: String!) { refundPurchase(purchaseId: $purchaseId, reason: "changed my mind") { purchaseId status } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!) { creditPoints(userId: $userId, points: $points, reason: "test balance") { points } }';
const STATS = `query($appId: ID, $window: StatsWindow) { webhookDeliveryStats(appId: $appId, window: $window) {
  window buckets { start succeeded failed } successRate latencyP50Ms latencyP95Ms webhookState } }`;
const EARNINGS =
  'query($period: EarningsPeriod, $appId: ID) { developerEarnings(period: $period, appId: $appId) { period buckets { start installs purchases refunds netEarningsVnd } totalNetEarningsVnd } }';
const PLATFORM = `{ platformStats { deliveriesPerMinute { start succeeded failed } failureRate
  reviewQueue { appId appName submittedAt waitingHours overdue } appsFailingMost { appId appName failedAttempts attempts failureRate } } }`;
const DELIVERIES = 'query($appId: ID!) { webhookDeliveries(first: 100, filter: { appId: $appId }) { edges { node { id status attempts { number } } } } }';

const HOUR_MS = 3_600_000;
const sum = (buckets: { succeeded: number; failed: number }[], key: 'succeeded' | 'failed') => buckets.reduce((n, b) => n + b[key], 0);

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let admin: GraphQLTestClient;

beforeAll(async () => {
  // One quick retry: a failing delivery makes exactly two attempts and gives up within a second.
  plaza = await startTestPlaza({ POINT_VALUE_VND: String(POINT_VALUE_VND), WEBHOOK_RETRY_SCHEDULE: '100ms', WEBHOOK_TIMEOUT: '3s' });
  developer = await plaza.signIn('charts@studio.test');
  reviewer = await plaza.signIn(REVIEWER_EMAIL);
  admin = await plaza.signIn(ADMIN_EMAIL);
});

async function listedPaidApp(owner: GraphQLTestClient, webhookUrl: string) {
  const app = await submitApp(owner, { pricing: 'PAID', pricePoints: PRICE, webhookUrl });
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  return app;
}

/** `count` buyers each buy the app; resolves with the purchase ids once every delivery of the app has settled. */
async function buyMany(appId: string, count: number, owner = developer): Promise<string[]> {
  const purchaseIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const buyer = await plaza.signIn(`buyer-${appId}-${i}@users.test`);
    await admin.ok(CREDIT, { userId: buyer.userId, points: PRICE });
    purchaseIds.push((await buyer.ok<{ purchaseApp: { purchaseId: string } }>(BUY, { appId })).purchaseApp.purchaseId);
  }
  await settled(appId, count, owner);
  return purchaseIds;
}

/** Waits until the app has `count` deliveries, all settled, as its owner's log shows them. */
async function settled(appId: string, count: number, owner: GraphQLTestClient) {
  return vi.waitFor(
    async () => {
      const { webhookDeliveries } = await owner.ok<{ webhookDeliveries: { edges: { node: any }[] } }>(DELIVERIES, { appId });
      const nodes = webhookDeliveries.edges.map((e) => e.node);
      if (nodes.length < count || !nodes.every(isFinal)) throw new Error(`deliveries of ${appId} did not settle: ${JSON.stringify(nodes)}`);
      return nodes;
    },
    { timeout: 30_000, interval: 100 },
  );
}

const statsOf = async (client: GraphQLTestClient, variables: Record<string, unknown>) => (await client.ok<{ webhookDeliveryStats: any }>(STATS, variables)).webhookDeliveryStats;

describe('webhookDeliveryStats', () => {
  let okApp: any;
  let failingApp: any;
  let okReceiver: WebhookReceiver;
  let failingReceiver: WebhookReceiver;

  beforeAll(async () => {
    // Answers after 150 ms, so the latency percentiles have something to show.
    okReceiver = await WebhookReceiver.start(() => ({ status: 200, body: 'ok', delayMs: 150 }));
    failingReceiver = await WebhookReceiver.start(() => ({ status: 500, body: 'database is down' }));
    okApp = await listedPaidApp(developer, okReceiver.url());
    failingApp = await listedPaidApp(developer, failingReceiver.url());
    await buyMany(okApp.id, 3);
    await buyMany(failingApp.id, 2);
  });

  it('counts each app’s attempts per hour by outcome, with the success rate and latency percentiles, 24 zero-filled hourly buckets', async () => {
    const ok = await statsOf(developer, { appId: okApp.id });
    expect(ok.window).toBe('LAST_24_HOURS');
    expect(ok.buckets).toHaveLength(24);
    const starts = ok.buckets.map((b: any) => Date.parse(b.start));
    for (const [i, start] of starts.entries()) {
      expect(start % HOUR_MS).toBe(0);
      if (i > 0) expect(start - starts[i - 1]!).toBe(HOUR_MS);
    }
    // The current hour is the last bucket (the attempts were made a moment ago; an hour may have turned since).
    expect(Date.now() - starts.at(-1)!).toBeLessThan(HOUR_MS + 60_000);
    expect(sum(ok.buckets, 'succeeded')).toBe(okReceiver.requests.length);
    expect(okReceiver.requests.length).toBe(3);
    expect(sum(ok.buckets, 'failed')).toBe(0);
    expect(ok.successRate).toBe(1);
    // The receiver answers after 150 ms: the histogram's slot for it, within 10%, and well under the timeout.
    expect(ok.latencyP50Ms).toBeGreaterThanOrEqual(130);
    expect(ok.latencyP50Ms).toBeLessThan(3000);
    expect(ok.latencyP95Ms).toBeGreaterThanOrEqual(ok.latencyP50Ms);
    expect(ok.webhookState).toBe('ENABLED');

    const failing = await statsOf(developer, { appId: failingApp.id });
    expect(failingReceiver.requests.length).toBe(4); // two deliveries, two attempts each
    expect(sum(failing.buckets, 'failed')).toBe(4);
    expect(sum(failing.buckets, 'succeeded')).toBe(0);
    expect(failing.successRate).toBe(0);
    expect(failing.latencyP50Ms).toBeGreaterThanOrEqual(0);
    expect(failing.latencyP50Ms).toBeLessThan(3000);
  });

  it('has 168 hourly buckets over the last 7 days, and adds up all the viewer’s apps when no app is named', async () => {
    const week = await statsOf(developer, { appId: okApp.id, window: 'LAST_7_DAYS' });
    expect(week.window).toBe('LAST_7_DAYS');
    expect(week.buckets).toHaveLength(168);
    expect(sum(week.buckets, 'succeeded')).toBe(3);

    const all = await statsOf(developer, {});
    expect(all.buckets).toHaveLength(24);
    expect(sum(all.buckets, 'succeeded')).toBe(3);
    expect(sum(all.buckets, 'failed')).toBe(4);
    expect(all.successRate).toBeCloseTo(3 / 7, 5);
    expect(all.webhookState).toBeNull();

    // Someone with no apps: zero-filled buckets, and no rate or latency to speak of.
    const newcomer = await statsOf(await plaza.signIn('newcomer@studio.test'), {});
    expect(newcomer.buckets).toHaveLength(24);
    expect(sum(newcomer.buckets, 'succeeded') + sum(newcomer.buckets, 'failed')).toBe(0);
    expect(newcomer).toMatchObject({ successRate: null, latencyP50Ms: null, latencyP95Ms: null, webhookState: null });
  });

  it('shows an app’s numbers to its owner, reviewers, admins and the owner’s deliveries:read token; another developer learns nothing', async () => {
    for (const client of [reviewer, admin]) expect(sum((await statsOf(client, { appId: okApp.id })).buckets, 'succeeded')).toBe(3);
    const other = await plaza.signIn('rival@studio.test');
    const refused = await other.error(STATS, { appId: okApp.id });
    expect(['FORBIDDEN', 'NOT_FOUND']).toContain(refused.extensions?.code);
    // Their own (empty) numbers when no app is named: never the owner's.
    expect(sum((await statsOf(other, {})).buckets, 'succeeded')).toBe(0);

    const create = 'mutation($scopes: [String!]!) { createApiToken(input: { name: "charts", scopes: $scopes }) { token } }';
    const readToken = (await developer.ok<{ createApiToken: { token: string } }>(create, { scopes: ['deliveries:read'] })).createApiToken.token;
    expect(sum((await statsOf(developer.withToken(readToken), { appId: failingApp.id })).buckets, 'failed')).toBe(4);
    const appsToken = (await developer.ok<{ createApiToken: { token: string } }>(create, { scopes: ['apps:read'] })).createApiToken.token;
    expect((await developer.withToken(appsToken).error(STATS, { appId: okApp.id })).extensions?.code).toBe('FORBIDDEN');
  });

  it('lists for admins only: deliveries per minute, the failure rate, the review queue against the 24-hour promise, the apps failing most', async () => {
    for (const client of [developer, reviewer]) expect((await client.error(PLATFORM)).extensions?.code).toBe('FORBIDDEN');
    const pending = await submitApp(developer, { name: 'Waiting Room' });
    const { platformStats } = await admin.ok<{ platformStats: any }>(PLATFORM);
    expect(platformStats.deliveriesPerMinute).toHaveLength(60);
    expect(Date.now() - Date.parse(platformStats.deliveriesPerMinute.at(-1).start)).toBeLessThan(2 * 60_000);
    // This file's apps so far: 3 successes and 4 failures, all within the last few minutes.
    expect(sum(platformStats.deliveriesPerMinute, 'succeeded')).toBe(3);
    expect(sum(platformStats.deliveriesPerMinute, 'failed')).toBe(4);
    expect(platformStats.failureRate).toBeCloseTo(4 / 7, 5);
    const waiting = platformStats.reviewQueue.find((entry: any) => entry.appId === pending.id);
    expect(waiting).toMatchObject({ appName: 'Waiting Room', overdue: false });
    expect(waiting.waitingHours).toBeGreaterThanOrEqual(0);
    expect(waiting.waitingHours).toBeLessThan(1);
    expect(platformStats.appsFailingMost).toEqual([{ appId: failingApp.id, appName: failingApp.name, failedAttempts: 4, attempts: 4, failureRate: 1 }]);
  });
});

describe('developerEarnings', () => {
  it('counts installs, purchases and refunds per day, week and month, and nets a refund against its sale', async () => {
    const seller = await plaza.signIn('earner@studio.test');
    const receiver = await WebhookReceiver.start();
    const app = await listedPaidApp(seller, receiver.url());
    const [kept, refunded] = await buyMany(app.id, 2, seller);
    expect(kept).toBeDefined();
    await admin.ok(REFUND, { purchaseId: refunded });

    const earningsOf = async (period?: string) => (await seller.ok<{ developerEarnings: any }>(EARNINGS, { period })).developerEarnings;
    const day = await earningsOf();
    expect(day.period).toBe('DAY');
    expect(day.buckets).toHaveLength(30);
    const today = day.buckets.at(-1);
    expect(Date.now() - Date.parse(today.start)).toBeLessThan(24 * HOUR_MS + 60_000);
    expect(today).toMatchObject({ installs: 2, purchases: 2, refunds: 1, netEarningsVnd: SHARE });
    expect(day.buckets.slice(0, -1).every((b: any) => b.installs + b.purchases + b.refunds + b.netEarningsVnd === 0)).toBe(true);
    expect(day.totalNetEarningsVnd).toBe(SHARE);
    for (const period of ['WEEK', 'MONTH']) {
      const series = await earningsOf(period);
      expect(series.buckets, period).toHaveLength(12);
      expect(series.buckets.at(-1), period).toMatchObject({ installs: 2, purchases: 2, refunds: 1, netEarningsVnd: SHARE });
      expect(series.totalNetEarningsVnd).toBe(SHARE);
    }
    // One app by id; someone else's app is not theirs to read.
    expect((await seller.ok<{ developerEarnings: any }>(EARNINGS, { appId: app.id })).developerEarnings.totalNetEarningsVnd).toBe(SHARE);
    expect(['FORBIDDEN', 'NOT_FOUND']).toContain((await developer.error(EARNINGS, { appId: app.id })).extensions?.code);
  });
});

describe('the rollups kept for the charts', () => {
  /** Every number the rollups answer, and the same from the attempts themselves. */
  async function bothWays(appIds: string[]) {
    const services = plaza.services;
    const [rollup, raw] = await Promise.all([
      services.insights.deliveryStats(appIds, StatsWindow.LAST_7_DAYS, null, 'rollup'),
      services.insights.deliveryStats(appIds, StatsWindow.LAST_7_DAYS, null, 'raw'),
    ]);
    const [platformRollup, platformRaw] = await Promise.all([services.insights.platformStats('rollup'), services.insights.platformStats('raw')]);
    return { rollup, raw, platformRollup, platformRaw };
  }

  function expectAgreement({ rollup, raw, platformRollup, platformRaw }: Awaited<ReturnType<typeof bothWays>>) {
    expect(rollup.buckets).toEqual(raw.buckets);
    expect(rollup.successRate).toBe(raw.successRate);
    // The rollup's percentiles come from the histogram: the exact value's slot.
    for (const key of ['latencyP50Ms', 'latencyP95Ms'] as const) {
      expect(raw[key], key).not.toBeNull();
      expect(latencySlot(rollup[key]!), key).toBe(latencySlot(raw[key]!));
    }
    expect(platformRollup.deliveriesPerMinute).toEqual(platformRaw.deliveriesPerMinute);
    expect(platformRollup.failureRate).toBe(platformRaw.failureRate);
    expect(platformRollup.appsFailingMost).toEqual(platformRaw.appsFailingMost);
  }

  it('agree with the attempts themselves after a mix of successes, failures, retries that succeed and manual redeliveries; the migration fills them from attempts already recorded', async () => {
    const seller = await plaza.signIn('mix@studio.test');
    // Fails every other request: first attempts fail and their retries succeed, at varied speeds.
    const flaky = await WebhookReceiver.start((_, i) => ({ status: i % 2 === 0 ? 503 : 200, delayMs: (i * 37) % 200 }));
    const steady = await WebhookReceiver.start((_, i) => ({ status: i % 3 === 0 ? 404 : 204, delayMs: (i * 53) % 120 }));
    const flakyApp = await listedPaidApp(seller, flaky.url());
    const steadyApp = await listedPaidApp(seller, steady.url());
    await Promise.all([buyMany(flakyApp.id, 4, seller), buyMany(steadyApp.id, 5, seller)]);
    // Manual redeliveries are attempts too, recorded outside the batched writer.
    const deliveries = await settled(steadyApp.id, 5, seller);
    for (const delivery of deliveries.slice(0, 2)) {
      await seller.ok('mutation($id: ID!) { redeliverWebhook(deliveryId: $id) { id } }', { id: delivery.id });
      await waitForDelivery(seller, delivery.id, (d) => d.attempts.length >= 2 && d.attempts.every((a: any) => a.finished));
    }
    const appIds = [flakyApp.id, steadyApp.id];
    const attempts = flaky.requests.length + steady.requests.length;
    const numbers = await bothWays(appIds);
    expect(sum(numbers.rollup.buckets, 'succeeded') + sum(numbers.rollup.buckets, 'failed')).toBe(attempts);
    expect(sum(numbers.rollup.buckets, 'failed')).toBeGreaterThan(0);
    expect(sum(numbers.rollup.buckets, 'succeeded')).toBeGreaterThan(0);
    expectAgreement(numbers);

    // The migration on this populated database: dropped and made again, it fills the rollups from the attempts.
    const migration = new DeliveryRollups1796000017000();
    const runner = plaza.services.db.createQueryRunner();
    try {
      await runner.startTransaction();
      await migration.down(runner);
      await migration.up(runner);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const [{ n }] = await plaza.services.db.query('SELECT count(*)::int AS n FROM webhook_attempt_hourly');
    expect(n).toBeGreaterThan(0);
    const backfilled = await bothWays(appIds);
    expect(backfilled.rollup).toEqual(numbers.rollup);
    expectAgreement(backfilled);
  });

  it('are pruned with the attempts: hourly rows past 8 days and minute rows past a day go, the charts’ windows stay', async () => {
    const { db } = plaza.services;
    const zeros = new Array<number>(LATENCY_SLOTS).fill(0);
    const now = Date.now();
    const hour = (msAgo: number) => new Date(Math.floor((now - msAgo) / HOUR_MS) * HOUR_MS);
    await db.query(
      `INSERT INTO webhook_attempt_hourly (app_id, hour, succeeded, failed, latency_counts) VALUES ('app_prune_test', $1, 1, 0, $3), ('app_prune_test', $2, 1, 0, $3)`,
      [hour(9 * 24 * HOUR_MS), hour(7 * 24 * HOUR_MS - HOUR_MS), zeros],
    );
    await db.query(`DELETE FROM webhook_attempt_minutely`);
    await db.query(`INSERT INTO webhook_attempt_minutely (minute, succeeded, failed) VALUES ($1, 1, 0), ($2, 1, 0)`, [new Date(now - 25 * HOUR_MS), new Date(now - 30 * 60_000)]);
    await pruneOldRollups(db, now);
    const hours = await db.query(`SELECT hour FROM webhook_attempt_hourly WHERE app_id = 'app_prune_test'`);
    expect(hours.map((r: { hour: Date }) => r.hour.getTime())).toEqual([hour(7 * 24 * HOUR_MS - HOUR_MS).getTime()]);
    const minutes = await db.query(`SELECT minute FROM webhook_attempt_minutely`);
    expect(minutes).toHaveLength(1);
  });

  it('reads percentiles from the histogram within its slot, as percentile_disc would', () => {
    const durations = [0, 1, 3, 7, 15, 150, 152, 160, 999, 1000, 4000, 10_000, 250_000];
    const counts = new Array<number>(LATENCY_SLOTS).fill(0);
    for (const d of durations) counts[latencySlot(d)]!++;
    const sorted = [...durations].sort((a, b) => a - b);
    for (const q of [0.01, 0.5, 0.95, 1]) {
      const exact = sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
      expect(latencySlot(histogramPercentile(counts, q)!), `q=${q}`).toBe(latencySlot(exact));
    }
    expect(histogramPercentile(new Array<number>(LATENCY_SLOTS).fill(0), 0.5)).toBeNull();
  });
});
