import { LATENCY_SLOTS, latencySlot } from '../../../platform/latency-histogram.js';

/** One attempt's outcome as the rollups count it. */
export interface FinishedAttempt {
  appId: string;
  /** Its delivery's endpoint; null only for a delivery recorded before endpoints and not backfilled yet (not counted per endpoint). */
  endpointId: string | null;
  finishedAt: Date;
  succeeded: boolean;
  durationMs: number;
}

interface HourRow {
  app_id: string;
  hour: string;
  succeeded: number;
  failed: number;
  latency_counts: number[];
}
interface EndpointHourRow {
  endpoint_id: string;
  hour: string;
  succeeded: number;
  failed: number;
  last_attempt_at: string;
}
interface MinuteRow {
  minute: string;
  succeeded: number;
  failed: number;
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const floorTo = (ms: number, unit: number) => new Date(Math.floor(ms / unit) * unit).toISOString();

/**
 * A batch of attempts summed per (app, hour), per (endpoint, hour) and per minute in memory, so the rollups take one row per
 * app and hour (and one per minute) rather than one per attempt: each row written costs PostgreSQL
 * about as much as a delivery's own row, and the platform's minutes need no app. Rows come sorted by
 * their keys: two writers that touch the same rows lock them in the same order and cannot deadlock.
 * Returns the JSON parameters of ROLL_UP.
 */
export function rollUp(attempts: readonly FinishedAttempt[]): { hourly: string; minutely: string; endpointHourly: string } {
  const hours = new Map<string, HourRow>();
  const endpointHours = new Map<string, EndpointHourRow>();
  const minutes = new Map<string, MinuteRow>();
  for (const { appId, endpointId, finishedAt, succeeded, durationMs } of attempts) {
    const hour = floorTo(finishedAt.getTime(), HOUR_MS);
    const minute = floorTo(finishedAt.getTime(), MINUTE_MS);
    let h = hours.get(`${appId} ${hour}`);
    if (!h) hours.set(`${appId} ${hour}`, (h = { app_id: appId, hour, succeeded: 0, failed: 0, latency_counts: new Array<number>(LATENCY_SLOTS).fill(0) }));
    let m = minutes.get(minute);
    if (!m) minutes.set(minute, (m = { minute, succeeded: 0, failed: 0 }));
    if (succeeded) {
      h.succeeded++;
      m.succeeded++;
    } else {
      h.failed++;
      m.failed++;
    }
    h.latency_counts[latencySlot(durationMs)]!++;
    if (endpointId === null) continue;
    const startedAt = new Date(finishedAt.getTime() - durationMs).toISOString();
    let e = endpointHours.get(`${endpointId} ${hour}`);
    if (!e) endpointHours.set(`${endpointId} ${hour}`, (e = { endpoint_id: endpointId, hour, succeeded: 0, failed: 0, last_attempt_at: startedAt }));
    if (succeeded) e.succeeded++;
    else e.failed++;
    if (startedAt > e.last_attempt_at) e.last_attempt_at = startedAt;
  }
  const sorted = <T>(rows: Map<string, T>) => [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  return { hourly: JSON.stringify(sorted(hours)), minutely: JSON.stringify(sorted(minutes)), endpointHourly: JSON.stringify(sorted(endpointHours)) };
}

/**
 * Three CTEs that add a batch's sums ($hourly, $minutely, $endpointHourly: rollUp's JSON) to webhook_attempt_hourly,
 * webhook_attempt_minutely and webhook_endpoint_hourly (what WebhookEndpoint.health reads its last day from):
 * part of the statement that records the attempts, so the counts commit with them.
 */
export const ROLL_UP = (hourly: string, minutely: string, endpointHourly: string) => `rolled_up_hours AS (
         INSERT INTO webhook_attempt_hourly AS h (app_id, hour, succeeded, failed, latency_counts)
         SELECT * FROM jsonb_to_recordset(${hourly}::jsonb) AS x(app_id text, hour timestamptz, succeeded int, failed int, latency_counts int[]) ORDER BY app_id, hour
         ON CONFLICT (app_id, hour) DO UPDATE
            SET succeeded = h.succeeded + EXCLUDED.succeeded, failed = h.failed + EXCLUDED.failed,
                latency_counts = ARRAY(SELECT kept + added FROM unnest(h.latency_counts, EXCLUDED.latency_counts) WITH ORDINALITY AS s(kept, added, i) ORDER BY i)
       ), rolled_up_minutes AS (
         INSERT INTO webhook_attempt_minutely AS m (minute, succeeded, failed)
         SELECT * FROM jsonb_to_recordset(${minutely}::jsonb) AS x(minute timestamptz, succeeded int, failed int) ORDER BY minute
         ON CONFLICT (minute) DO UPDATE SET succeeded = m.succeeded + EXCLUDED.succeeded, failed = m.failed + EXCLUDED.failed
       ), rolled_up_endpoint_hours AS (
         INSERT INTO webhook_endpoint_hourly AS e (endpoint_id, hour, succeeded, failed, last_attempt_at)
         SELECT * FROM jsonb_to_recordset(${endpointHourly}::jsonb) AS x(endpoint_id text, hour timestamptz, succeeded int, failed int, last_attempt_at timestamptz)
          ORDER BY endpoint_id, hour
         ON CONFLICT (endpoint_id, hour) DO UPDATE
            SET succeeded = e.succeeded + EXCLUDED.succeeded, failed = e.failed + EXCLUDED.failed, last_attempt_at = GREATEST(e.last_attempt_at, EXCLUDED.last_attempt_at)
       )`;

/** ROLL_UP on its own ($1, $2, $3): for an attempt recorded outside the batched writer (a manual redelivery). */
export const ROLL_UP_ALONE = `WITH ${ROLL_UP('$1', '$2', '$3')} SELECT 1`;
