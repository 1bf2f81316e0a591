import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';
import { submitApp } from '../helpers/factories.js';
import { GraphQLTestClient, subscribe } from '../helpers/graphql-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { LIVE_DELIVERIES, SEND_TEST, openDatabase, requestsPerDelivery, startApiProcess, startWorkerProcess, waitUntil, restartablePostgres } from './fault-helpers.js';

type Update = { webhookDeliveryUpdated: { id: string; status: string } };

const postgres = restartablePostgres('restart');

const readyz = (url: string) =>
  fetch(`${url}/readyz`).then(
    (r) => r.status,
    () => 0,
  );

describe('PostgreSQL restarted under load', () => {
  // Several PostgreSQL starts and Plaza boots: 35-44 s measured on two cores beside a second copy of the suite.
  it('the API and a worker recover on their own: nothing acknowledged is lost, live updates resume', { timeout: 120_000 }, async () => {
    const port = await findFreePort();
    const database = await postgres.start(port);
    const url = database.url;
    // Test events are the load here, far more than an app's 10 a minute.
    const api = await startApiProcess(url, { WEBHOOK_TEST_EVENTS_PER_MINUTE: '1000000' });
    // A short lease so deliveries whose results could not be written during the outage are retried soon after.
    const worker = await startWorkerProcess(url, { WEBHOOK_TIMEOUT: '2s', WEBHOOK_CLAIM_LEASE: '3s', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,500ms,500ms,500ms' });
    const db = await openDatabase(url);
    postgres.cleanup(() => db.end());

    const receiver = await WebhookReceiver.start();
    const developer = await GraphQLTestClient.signIn(api.url, 'restart@studio.test');
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const socket = developer.websocket();
    postgres.cleanup(async () => socket.dispose());
    const live = subscribe<Update>(socket, LIVE_DELIVERIES, { appId: app.id });
    const liveSucceeded = () => new Set(live.received.filter((u) => u.webhookDeliveryUpdated.status === 'SUCCEEDED').map((u) => u.webhookDeliveryUpdated.id));
    // Live updates work before the fault (this also proves the subscription is in place).
    const before = (await developer.ok<{ sendTestWebhook: { id: string } }>(SEND_TEST, { appId: app.id })).sendTestWebhook.id;
    await waitUntil('the live update of a delivery before the restart', () => liveSucceeded().has(before), 10_000);

    // Load: two clients commit test events back to back; an event counts once its mutation answered with it.
    const acknowledged: { id: string; at: number }[] = [{ id: before, at: Date.now() }];
    let refused = 0;
    let loading = true;
    const producer = async () => {
      while (loading) {
        // Refused while the database restarts: counted as refused below, which is what the test measures.
        const result = await developer.request<{ sendTestWebhook: { id: string } }>(SEND_TEST, { appId: app.id }).catch(() => undefined);
        if (result?.data?.sendTestWebhook) acknowledged.push({ id: result.data.sendTestWebhook.id, at: Date.now() });
        else refused += 1;
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    const producers = [producer(), producer()];
    const readiness: number[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        readiness.push(await readyz(api.url));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    await waitUntil('events committed under load', () => acknowledged.length >= 30, 10_000);
    await postgres.stop();
    await waitUntil('/readyz to report the database unreachable', () => readiness.at(-1) === 503, 10_000);
    // Down until each LISTEN connection has noticed and failed to reconnect twice (what the check below that
    // each reconnected once is about), as the API's pool has noticed (/readyz), not for a fixed 3 s.
    const failedReconnects = (output: string, line: RegExp) => output.match(line)?.length ?? 0;
    await waitUntil(
      'the API and the worker to try to reconnect while PostgreSQL is down',
      () =>
        failedReconnects(api.output(), /live-update listener: could not reconnect yet/g) >= 2 &&
        failedReconnects(worker.output(), /job wake-up listener[^"]*: could not reconnect yet/g) >= 2,
      20_000,
    );
    await postgres.start(port);
    const restartedAt = Date.now();
    await waitUntil('/readyz to answer 200 again', () => readiness.at(-1) === 200, 20_000);
    await waitUntil('events acknowledged after the restart', () => acknowledged.filter((a) => a.at > restartedAt).length >= 30, 20_000);
    // Notifications sent before the API's live-update connection LISTENs again are lost by design (a
    // page catches up by querying); on a busy machine that connection may come back after the pool's.
    await waitUntil('the API to LISTEN for live updates again', () => /live-update listener: listening again/.test(api.output()), 20_000);
    const listeningAgainAt = Date.now();
    await waitUntil('events acknowledged after the API listens again', () => acknowledged.filter((a) => a.at > listeningAgainAt).length >= 10, 20_000);
    loading = false;
    watching = false;
    await Promise.all([...producers, watcher]);

    // Both processes stayed up and came back by themselves.
    expect(api.child.exitCode, api.output()).toBeNull();
    expect(worker.child.exitCode, worker.output()).toBeNull();
    expect(readiness.slice(readiness.indexOf(503))).toContain(200);
    expect(refused).toBeGreaterThan(0); // the outage was real: some commits were refused

    // Nothing acknowledged is lost: every such delivery succeeded and reached the receiver.
    const ids = acknowledged.map((a) => a.id);
    await waitUntil(
      'every acknowledged delivery to succeed',
      async () => Number((await db.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = ANY($1) AND status = 'SUCCEEDED'", [ids])).rows[0].n) === ids.length,
      30_000,
      200,
    );
    const received = requestsPerDelivery(receiver);
    expect(ids.filter((id) => !received.has(id))).toEqual([]);

    // Live updates resumed on the same graphql-ws connection: the API's listener is back on plaza_live.
    const after = acknowledged.filter((a) => a.at > listeningAgainAt).map((a) => a.id);
    expect(after.length).toBeGreaterThanOrEqual(10);
    await waitUntil('live updates for deliveries committed after the restart', () => after.every((id) => liveSucceeded().has(id)), 15_000);
    // The worker's wake-up LISTEN is back too (without it, commits would wait for the one-second poll),
    // and each LISTEN connection reconnected once: failed attempts during the outage ran no second loop.
    await waitUntil('the worker to LISTEN for wake-ups again', () => /job wake-up listener.*listening again/.test(worker.output()), 15_000);
    expect(worker.output().match(/job wake-up listener[^"]*: listening again/g)).toHaveLength(1);
    expect(api.output().match(/live-update listener: listening again/g)).toHaveLength(1);

    expect(await worker.stop('SIGTERM'), worker.output()).toBe(0);
    expect(await api.stop('SIGTERM'), api.output()).toBe(0);
  });
});
