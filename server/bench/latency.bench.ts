import { fmt, verdict } from './report-format.js';
import { findFreePort } from '../platform/embedded-postgres.js';
import { newPurchaseId } from '../platform/ids.js';
import { WebhookEventType } from '../modules/webhooks/webhook.types.js';
import { createApps, percentile, roundRobin, startBenchDatabase, startBenchPlaza, startReceiver, waitForVerified } from './harness.js';

export interface LatencyResult {
  ratePerSecond: number;
  durationSeconds: number;
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const APPS = 10;

/**
 * Benchmark 2: an open loop (events committed on a fixed schedule, whatever the engine does) at
 * `ratePerSecond` for `durationSeconds`; latency = the commit returning to the first byte of the
 * webhook request at the receiver (a delivery that arrives before the producer sees its commit counts as 0).
 */
export async function latencyBenchmark(ratePerSecond: number, durationSeconds: number): Promise<LatencyResult> {
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { WEBHOOK_RETRY_SCHEDULE: '1s' });
  try {
    const { appIds, secretsByAppId } = await createApps(plaza, APPS, `http://127.0.0.1:${port}/bench/webhook`);
    const receiver = await startReceiver(secretsByAppId, { port, recordArrivals: true });
    try {
      const { services } = plaza;
      const events = Math.round(ratePerSecond * durationSeconds);
      const committedAt = new Map<string, number>();
      const started = Date.now();
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < events; i++) {
        const dueAt = started + (i * 1000) / ratePerSecond;
        const wait = dueAt - Date.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const purchaseId = newPurchaseId();
        inFlight.push(
          services.db
            .transaction((manager) =>
              services.webhookEvents.recordEvent(manager, {
                type: WebhookEventType.APP_PURCHASED,
                appId: roundRobin(appIds, i),
                userId: `usr_${i}`,
                purchaseId,
                amountVnd: 50_000,
                developerShareVnd: 40_000,
              }),
            )
            .then(() => void committedAt.set(purchaseId, Date.now())),
        );
      }
      await Promise.all(inFlight);
      await waitForVerified(receiver, events, 120_000);
      const latencies = (await receiver.arrivals()).map(([purchaseId, arrivedAt]) => Math.max(0, arrivedAt - committedAt.get(purchaseId)!));
      return { ratePerSecond, durationSeconds, events, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), maxMs: Math.max(...latencies) };
    } finally {
      await receiver.close();
    }
  } finally {
    await plaza.stop();
    await database.close();
  }
}

/** Section 2 of BENCHMARKS.md: one row per rate, each with its p99 target. */
export function latencyReport(runs: { result: LatencyResult; p99TargetMs: number }[]): string {
  return `## 2. Latency (open loop: events committed on schedule, one transaction each; commit to first byte at the receiver)

| Rate | Duration | Events | p50 | p99 | max | Target (p99) |
|---|---|---|---|---|---|---|
${runs.map(({ result: l, p99TargetMs }) => `| ${fmt(l.ratePerSecond)}/s | ${l.durationSeconds} s | ${fmt(l.events)} | ${l.p50Ms} ms | ${l.p99Ms} ms | ${l.maxMs} ms | <= ${p99TargetMs} ms: ${verdict(l.p99Ms <= p99TargetMs)} |`).join('\n')}

What bounds it now: the path is commit, NOTIFY to the worker's listener, a claim (gathered for up to 8 ms
after a claim that emptied the queue, so one statement serves several commits), signing and the POST.
The median is those round trips; the tail is the commits themselves (each event is its own transaction
with fsync, and the producer shares the process with the engine) and the claim window.
`;
}
