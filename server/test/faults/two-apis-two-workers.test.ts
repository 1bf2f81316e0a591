import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { submitApp } from '../helpers/factories.js';
import { GraphQLTestClient, subscribe } from '../helpers/graphql-client.js';
import type { PlazaProcess } from '../helpers/process.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  LIVE_DELIVERIES,
  countByStatus,
  openDatabase,
  purchaseEventProducer,
  requestsPerDelivery,
  startApiProcess,
  startWorkerProcess,
  waitForSubscriptionsOn,
  waitUntil,
} from './fault-helpers.js';

const DELIVERIES = 200;
const WORKER_ENV = { WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms', WEBHOOK_TIMEOUT: '2s', WEBHOOK_CLAIM_LEASE: '10s' };

type Update = { webhookDeliveryUpdated: { id: string; status: string; attemptCount: number } };

describe('two API processes and two workers on one database', () => {
  const processes: PlazaProcess[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('make every scheduled attempt exactly once, and live updates reach clients of either API', async () => {
    const databaseUrl = await createTestDatabase();
    const db = await openDatabase(databaseUrl);
    cleanups.push(() => db.end());
    // One at a time at first, so one process runs the migrations and the rest find them done.
    const apiA = await startApiProcess(databaseUrl);
    const [apiB, workerA, workerB] = await Promise.all([startApiProcess(databaseUrl), startWorkerProcess(databaseUrl, WORKER_ENV), startWorkerProcess(databaseUrl, WORKER_ENV)]);
    processes.push(apiA, apiB, workerA, workerB);

    // Each delivery's first attempt fails, its second succeeds: exactly two scheduled attempts each.
    const seen = new Set<string>();
    const receiver = await WebhookReceiver.start((request) => {
      const id = String(request.headers['x-platform-delivery']);
      if (seen.has(id)) return { status: 200, body: 'ok', delayMs: 20 };
      seen.add(id);
      return { status: 500, body: 'not yet', delayMs: 20 };
    });
    // Sessions live in the database: one sign-in works against both API processes.
    const onA = await GraphQLTestClient.signIn(apiA.url, 'scale@studio.test');
    const onB = new GraphQLTestClient(apiB.url, onA.token, onA.user);
    const app = await submitApp(onA, { webhookUrl: receiver.url() });

    const sockets = [onA.websocket(), onB.websocket()] as const;
    cleanups.push(() => Promise.all(sockets.map((s) => s.dispose())));
    const [liveA, liveB] = [subscribe<Update>(sockets[0], LIVE_DELIVERIES, { appId: app.id }), subscribe<Update>(sockets[1], LIVE_DELIVERIES, { appId: app.id })];
    await Promise.all([waitForSubscriptionsOn(apiA.url, 1), waitForSubscriptionsOn(apiB.url, 1)]);

    // Purchases' events, committed by a fifth process (this one) as the marketplace commits them, a few at a
    // time: retried on the schedule, which test events (sent once) are not.
    const { purchase, close } = await purchaseEventProducer(databaseUrl, app.id, onA.userId);
    cleanups.push(close);
    const ids: string[] = [];
    for (let i = 0; i < DELIVERIES; i += 10) ids.push(...(await Promise.all(Array.from({ length: 10 }, purchase))).map((delivery) => delivery!.id));
    await waitUntil('every delivery to succeed', async () => (await countByStatus(db, app.id)).SUCCEEDED === DELIVERIES, 90_000, 100);

    // Exactly two requests per delivery at the receiver, and two attempts each on record: none made twice.
    const perDelivery = requestsPerDelivery(receiver);
    expect(perDelivery.size).toBe(DELIVERIES);
    expect([...perDelivery.values()].filter((n) => n !== 2)).toEqual([]);
    const { rows } = await db.query<{ attempts: number; n: number }>(
      `SELECT per.attempts, count(*)::int AS n FROM (
         SELECT d.id, count(a.*)::int AS attempts FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
          WHERE d.app_id = $1 AND a.trigger = 'SCHEDULED' AND a.finished GROUP BY d.id) per GROUP BY per.attempts`,
      [app.id],
    );
    expect(rows).toEqual([{ attempts: 2, n: DELIVERIES }]);

    // Every update reached the subscribers of both API processes: RETRYING then SUCCEEDED for each delivery.
    for (const live of [liveA, liveB]) {
      const updates = await live.waitFor(2 * DELIVERIES, 30_000);
      const byDelivery = new Map<string, string[]>();
      for (const { webhookDeliveryUpdated: u } of updates) byDelivery.set(u.id, [...(byDelivery.get(u.id) ?? []), u.status]);
      expect(new Set(byDelivery.keys())).toEqual(new Set(ids));
      expect([...byDelivery.values()].filter((statuses) => statuses.join() !== 'RETRYING,SUCCEEDED')).toEqual([]);
    }

    for (const process of processes) expect(await process.stop('SIGTERM'), process.output()).toBe(0);
    // Four processes and 400 attempts on two cores: the time limit is for a stuck run, not a slow machine.
  }, 180_000);
});
