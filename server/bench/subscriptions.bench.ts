import { mkdirSync, readFileSync } from 'node:fs';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { findFreePort } from '../platform/embedded-postgres.js';
import { newPurchaseId } from '../platform/ids.js';
import type { RunningPlaza } from '../app/plaza.js';
import { devUserId } from '../modules/identity/identity.service.js';
import { WebhookEventType } from '../modules/webhooks/webhook.types.js';
import { benchKey, createApps, median, percentile, startBenchDatabase, startBenchPlaza, startReceiver } from './harness.js';
import { residentMiB, startServerProcess } from './server-process.js';
import { fmt, verdict } from './report-format.js';

export interface SubscriptionsResult {
  subscribers: number;
  /** First connection opened to the last one acknowledged (connection_ack). */
  connectSeconds: number;
  /** VmRSS of the server process, idle after /readyz, and with every subscriber connected and settled. */
  rssBeforeMiB: number;
  rssAfterMiB: number;
  /** (after - before) / subscribers x 1,000, in MB (10^6 bytes, the target's unit). */
  mbPer1000: number;
  ratePerSecond: number;
  durationSeconds: number;
  updates: number;
  /** subscribers x updates */
  expectedMessages: number;
  received: number;
  lost: number;
  /** Error messages the subscribers received instead of updates. */
  subscriptionErrors: number;
  /** Subscriber receipt minus the delivery's `updatedAt` (the row write that precedes the NOTIFY). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /**
   * The server process's CPU (user + system) over the measured updates, per subscriber message, µs: on a
   * busy machine latency moves with everyone else's load, this much less.
   */
  serverCpuUsPerMessage: number;
  /** The same for this process, which holds the subscribers (and commits the few events): the other side of each message. */
  subscribersCpuUsPerMessage: number;
}

const SUBSCRIPTION = 'subscription($appId: ID) { webhookDeliveryUpdated(appId: $appId) { id status updatedAt } }';
const CONNECT_BATCH = 250;
const SETTLE_MS = 5000;
const WAIT_FOR_ALL_MS = 30_000;
const EMAIL = 'bench@plaza.test';

interface Subscriber {
  client: Client;
  /** delivery id -> receipt time minus updatedAt, ms */
  latencyById: Map<string, number>;
}

/** Shared by all subscribers, so waiting for everything is a comparison, not a scan of every map. */
interface Tally {
  received: number;
  errors: number;
}

/**
 * Benchmark 6: graphql-ws subscribers of one app's delivery updates on a server in its own process,
 * while that server's worker delivers events committed at `ratePerSecond` by this process (the real
 * publish path: result row written, NOTIFY, the API process's listener, graphql-ws).
 * `PLAZA_BENCH_CPU_PROF=<dir>` runs the server under `node --cpu-prof` and leaves its profile there.
 */
export async function subscriptionsBenchmark(size: 'tiny' | 'full'): Promise<SubscriptionsResult> {
  const subscriberCount = size === 'tiny' ? 100 : 5000;
  const durationSeconds = size === 'tiny' ? 3 : 20;
  const ratePerSecond = 2;
  const database = await startBenchDatabase();
  // This process's own services create the app and commit the events; it runs no worker.
  const producer = await startBenchPlaza(database.databaseUrl, { RUN_WORKER: 'false' });
  const subscribers: Subscriber[] = [];
  const tally: Tally = { received: 0, errors: 0 };
  try {
    const receiverPort = await findFreePort();
    const { appIds, secretsByAppId } = await createApps(producer, 1, `http://127.0.0.1:${receiverPort}/bench/webhook`);
    const [appId] = appIds;
    if (!appId) throw new Error('createApps made no app');
    const receiver = await startReceiver(secretsByAppId, { port: receiverPort });
    try {
      const profileDir = process.env.PLAZA_BENCH_CPU_PROF;
      if (profileDir) mkdirSync(profileDir, { recursive: true });
      const server = await startServerProcess(
        {
          DATABASE_URL: database.databaseUrl,
          PORT: String(await findFreePort()),
          SECRET_ENCRYPTION_KEY: benchKey,
          WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
          WEB_DIST_DIR: '/nonexistent',
          // Every subscriber is one account's socket here (one audience, the fan-out this measures), past its default 20.
          WEBSOCKETS_PER_ACCOUNT: String(subscriberCount),
        },
        { nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] },
      );
      try {
        const { token } = await producer.services.identity.signIn({ id: devUserId(EMAIL), email: EMAIL, provider: 'dev' });
        await warmUp(server.url, token, producer, appId);
        await new Promise((r) => setTimeout(r, 2000));
        const rssBeforeMiB = residentMiB(server.pid);

        const connectStarted = performance.now();
        for (let first = 0; first < subscriberCount; first += CONNECT_BATCH) {
          const batch = Array.from({ length: Math.min(CONNECT_BATCH, subscriberCount - first) }, () => connectSubscriber(server.url, token, appId, tally));
          subscribers.push(...batch.map((b) => b.subscriber));
          await Promise.all(batch.map((b) => b.connected));
        }
        const connectSeconds = (performance.now() - connectStarted) / 1000;
        // A first update proves every subscription is registered (the server subscribes after its own
        // ownership check), so the measured updates start with everyone listening.
        await commitEvent(producer, appId);
        await waitForAll(tally, subscriberCount, WAIT_FOR_ALL_MS);
        await new Promise((r) => setTimeout(r, SETTLE_MS));
        const rssAfterMiB = median([0, 1, 2].map(() => residentMiB(server.pid)));

        const updates = Math.round(ratePerSecond * durationSeconds);
        const cpuBeforeMs = processCpuMs(server.pid);
        const ownCpuBefore = process.cpuUsage();
        const deliveryIds = await commitOnSchedule(producer, appId, updates, ratePerSecond);
        // Losses are counted below rather than thrown, so the report shows them.
        await waitForAll(tally, subscriberCount * (1 + updates), WAIT_FOR_ALL_MS).catch(() => undefined);
        const serverCpuMs = processCpuMs(server.pid) - cpuBeforeMs;
        const ownCpu = process.cpuUsage(ownCpuBefore);

        const latencies = subscribers.flatMap((s) => deliveryIds.filter((id) => s.latencyById.has(id)).map((id) => s.latencyById.get(id)!));
        const expectedMessages = subscriberCount * updates;
        const p99Ms = percentile(latencies, 99);
        const serverCpuUsPerMessage = (serverCpuMs * 1000) / Math.max(1, latencies.length);
        const subscribersCpuUsPerMessage = (ownCpu.user + ownCpu.system) / Math.max(1, latencies.length);
        // Each run's figure as it ends: a later run that fails (a busy machine) does not take it with it.
        process.stderr.write(
          `subscriptions run: p50 ${percentile(latencies, 50)} ms, p99 ${p99Ms} ms, CPU per message: server ${serverCpuUsPerMessage.toFixed(1)} µs, subscribers ${subscribersCpuUsPerMessage.toFixed(1)} µs, received ${latencies.length} of ${expectedMessages}\n`,
        );
        return {
          subscribers: subscriberCount,
          connectSeconds,
          rssBeforeMiB,
          rssAfterMiB,
          mbPer1000: (((rssAfterMiB - rssBeforeMiB) * 2 ** 20) / 1e6 / subscriberCount) * 1000,
          ratePerSecond,
          durationSeconds,
          updates,
          expectedMessages,
          received: latencies.length,
          lost: expectedMessages - latencies.length,
          subscriptionErrors: tally.errors,
          p50Ms: percentile(latencies, 50),
          p99Ms,
          maxMs: latencies.reduce((a, b) => Math.max(a, b), 0),
          serverCpuUsPerMessage,
          subscribersCpuUsPerMessage,
        };
      } finally {
        // dispose() is typed void | Promise<void>: the async arrow makes each a promise to wait for.
        await Promise.all(subscribers.map(async (s) => s.client.dispose()));
        await server.stop();
      }
    } finally {
      await receiver.close();
    }
  } finally {
    await producer.stop();
    await database.close();
  }
}

/** CPU time (user + system) a process has used so far, ms (/proc counts 10 ms clock ticks). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function connectSubscriber(serverUrl: string, token: string, appId: string, tally: Tally): { subscriber: Subscriber; connected: Promise<void> } {
  const client = createClient({
    url: `${serverUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
  const subscriber: Subscriber = { client, latencyById: new Map() };
  const connected = new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (event) => reject(new Error(`a subscriber's connection closed before it was acknowledged: ${(event as { code?: number }).code}`)));
  });
  client.subscribe<{ webhookDeliveryUpdated: { id: string; updatedAt: string } }>(
    { query: SUBSCRIPTION, variables: { appId } },
    {
      next: ({ data }) => {
        const receivedAt = Date.now();
        const update = data?.webhookDeliveryUpdated;
        if (!update || subscriber.latencyById.has(update.id)) return;
        subscriber.latencyById.set(update.id, receivedAt - Date.parse(update.updatedAt));
        tally.received += 1;
      },
      error: () => void (tally.errors += 1),
      complete: () => undefined,
    },
  );
  return { subscriber, connected };
}

/**
 * One subscriber through one update and gone again: the server's first subscription compiles and
 * allocates what every later one shares, which is not a cost per subscriber.
 */
async function warmUp(serverUrl: string, token: string, producer: RunningPlaza, appId: string): Promise<void> {
  const tally: Tally = { received: 0, errors: 0 };
  const { subscriber, connected } = connectSubscriber(serverUrl, token, appId, tally);
  try {
    await connected;
    // The subscription registers after the connection is acknowledged; an update before that is missed.
    for (let tries = 0; tally.received === 0; tries++) {
      if (tries === 20) throw new Error('the warm-up subscriber received no update');
      await commitEvent(producer, appId);
      // Not there within a second: the loop commits another event and waits again.
      await waitForAll(tally, 1, 1000).catch(() => undefined);
    }
  } finally {
    await subscriber.client.dispose();
  }
}

const commitEvent = async (producer: RunningPlaza, appId: string): Promise<string> => {
  const { services } = producer;
  const delivery = await services.db.transaction((manager) =>
    services.webhookEvents.recordEvent(manager, {
      type: WebhookEventType.APP_PURCHASED,
      appId,
      userId: 'usr_bench',
      purchaseId: newPurchaseId(),
      amountVnd: 50_000,
      developerShareVnd: 40_000,
    }),
  );
  return delivery!.id;
};

/** An open loop: one event every 1/rate s, whatever the server does. Returns the delivery ids. */
async function commitOnSchedule(producer: RunningPlaza, appId: string, count: number, ratePerSecond: number): Promise<string[]> {
  const started = Date.now();
  const commits: Promise<string>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / ratePerSecond - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    commits.push(commitEvent(producer, appId));
  }
  return Promise.all(commits);
}

async function waitForAll(tally: Tally, expected: number, timeoutMs: number): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; tally.received < expected; await new Promise((r) => setTimeout(r, 50))) {
    if (Date.now() > deadline) throw new Error(`${expected - tally.received} updates not received within ${timeoutMs} ms (${tally.errors} subscription errors)`);
  }
}

export function subscriptionsReport(r: SubscriptionsResult): string {
  return `## 6. Subscriptions (${fmt(r.subscribers)} graphql-ws subscribers to one app's \`webhookDeliveryUpdated\`, ${r.ratePerSecond} updates/s for ${r.durationSeconds} s)

The server runs as its own process (\`node server/dist/main.js\`, API and worker); this process holds
the subscribers (one WebSocket each, authenticated as the app's developer) and commits the events
through \`recordEvent\`. Each update is a real delivery: the worker writes the result (\`updatedAt\`),
NOTIFY carries it to the API's listener, graphql-ws sends it to every subscriber.

| Figure | Now | Target |
|---|---|---|
| Server resident memory (VmRSS), idle / ${fmt(r.subscribers)} subscribers connected | ${r.rssBeforeMiB.toFixed(0)} MiB / ${r.rssAfterMiB.toFixed(0)} MiB | |
| Resident memory per 1,000 subscribers | ${r.mbPer1000.toFixed(1)} MB | <= 25 MB: ${verdict(r.mbPer1000 <= 25)} |
| Connecting all (batches of ${CONNECT_BATCH}) | ${r.connectSeconds.toFixed(1)} s | |
| Latency, \`updatedAt\` to receipt: p50 / p99 / max | ${r.p50Ms} / ${r.p99Ms} / ${r.maxMs} ms | p99 <= 250 ms: ${verdict(r.p99Ms <= 250)} |
| CPU (user + system) per subscriber message, over the updates: server / subscribers' process | ${r.serverCpuUsPerMessage.toFixed(1)} µs / ${r.subscribersCpuUsPerMessage.toFixed(1)} µs | |
| Messages received / expected (${r.updates} updates x ${fmt(r.subscribers)}) | ${fmt(r.received)} / ${fmt(r.expectedMessages)} (errors: ${fmt(r.subscriptionErrors)}) | lost 0: ${verdict(r.lost === 0)} (${fmt(r.lost)}) |

Memory is read ${SETTLE_MS / 1000} s after every subscriber has received a first update; latency is the
subscriber's clock at receipt minus the delivery's \`updatedAt\` (PostgreSQL's clock_timestamp() on the
same machine, written just before the NOTIFY), over every subscriber and update.

What bounds it now: the server's one core, per subscriber, and mostly beneath JavaScript. An update is
executed once per distinct question (same query, operation and variables, asked by subscribers equal in
everything authorization reads: \`platform/subscription-execution.ts\`) and its JSON is made once; a
subscriber's frame is that text in an envelope with its subscription id. The pub/sub hands each update
straight to the frame writer, and one pass per burst writes every subscriber's frames, a socket's frames
corked into one write (\`platform/subscription-frames.ts\`). Before that, graphql-ws stringified and sent
each subscriber's message itself, through several promises per subscriber and update: 23-29 µs of server
CPU per message against 11-18 µs after, in runs of both taken in turn on the same machine. Profiled now
(\`node --cpu-prof\` on the server, over the updates), a message's CPU is the writev system call of its
socket (on loopback including the receiving side's TCP work) about 45%, garbage collection about 20%, ws's
framing and Node's stream writes about 15%, the rest (dispatch, the shared answer, the frame) about 20%.
So one update's ${fmt(r.subscribers)} messages take about ${Math.round((r.subscribers * r.serverCpuUsPerMessage) / 1000)} ms of one core to leave
(${r.serverCpuUsPerMessage.toFixed(1)} µs each), and the last subscribers of the burst set the p99: the server needs that
much of a core within the 250 ms, on a machine whose two cores also run the subscribers (${Math.round((r.subscribers * r.subscribersCpuUsPerMessage) / 1000)} ms of a core to
read one update's messages) and PostgreSQL.
Memory: a WebSocket, its graphql-ws context and the upgrade request it keeps, per subscriber;
query texts are parsed and validated once (it was about 38 MB per 1,000 when each subscriber had its own copy).
`;
}
