import type { DataSource } from 'typeorm';
import { toSafeInteger } from '../../platform/int64.js';
import { histogramPercentile } from '../../platform/latency-histogram.js';
import { queryPrepared } from '../../platform/prepared-query.js';
import { REVIEW_DUE_AFTER_MS } from '../apps/index.js';
import { INTERRUPTED, type WebhookState } from '../webhooks/index.js';
import { DeliveryStats, EarningsSeries, PlatformNumbers } from './insights.queries.js';
import {
  EarningsPeriod,
  PERIOD_BUCKETS,
  StatsWindow,
  WINDOW_HOURS,
  type DeveloperEarnings,
  type FailingApp,
  type PlatformStats,
  type WebhookDeliveryStats,
} from './insights.types.js';

/** Where delivery numbers come from: the rollup kept for the charts, or the attempts themselves (the reference, and the "before" of the bench). */
export type StatsSource = 'rollup' | 'raw';

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/**
 * The numbers behind the charts (issue 17): webhook health per app, a developer's earnings over time,
 * the platform at a glance. Callers have checked who may ask for which apps.
 */
export class InsightsService {
  constructor(private readonly db: DataSource) {}

  /** The apps `ownerId` owns, with their webhook state. */
  async ownedApps(ownerId: string): Promise<{ id: string; webhookState: WebhookState }[]> {
    const rows: { id: string; webhook_state: WebhookState }[] = await this.db.query('SELECT id, webhook_state FROM apps WHERE owner_id = $1', [ownerId]);
    return rows.map((row) => ({ id: row.id, webhookState: row.webhook_state }));
  }

  /** Deliveries of `appIds` over `window`, hourly; `webhookState` is the one app's, or null for several. */
  async deliveryStats(appIds: string[], window: StatsWindow, webhookState: WebhookState | null, source: StatsSource = 'rollup'): Promise<WebhookDeliveryStats> {
    const hours = WINDOW_HOURS[window];
    let rows: { start: Date; succeeded: number; failed: number }[];
    let latency: { p50: number | null; p95: number | null };
    if (source === 'raw') {
      const raw: { start: Date; succeeded: number; failed: number; p50: number | null; p95: number | null }[] = await this.db.query(DeliveryStats.raw, [
        appIds,
        hours,
        INTERRUPTED,
      ]);
      rows = raw;
      latency = { p50: raw[0]?.p50 ?? null, p95: raw[0]?.p95 ?? null };
    } else {
      const kept: { start: Date; succeeded: number; failed: number; latency_counts: number[] | null }[] = await queryPrepared(
        this.db.manager,
        'plaza_insights_delivery_stats',
        DeliveryStats.rollup,
        [appIds, hours],
      );
      rows = kept;
      // The window's summed histogram rides on the first row (one statement, one round trip).
      const counts = kept[0]?.latency_counts ?? [];
      latency = { p50: histogramPercentile(counts, 0.5), p95: histogramPercentile(counts, 0.95) };
    }
    const buckets = rows.map(({ start, succeeded, failed }) => ({ start, succeeded, failed }));
    const succeeded = buckets.reduce((sum, b) => sum + b.succeeded, 0);
    const all = buckets.reduce((sum, b) => sum + b.succeeded + b.failed, 0);
    return { window, buckets, successRate: ratio(succeeded, all), latencyP50Ms: latency.p50, latencyP95Ms: latency.p95, webhookState };
  }

  /** Installs, purchases, refunds and net earnings of `appIds`, per period. */
  async earnings(appIds: string[], period: EarningsPeriod): Promise<DeveloperEarnings> {
    const { unit, count } = PERIOD_BUCKETS[period];
    const rows: { start: Date; installs: number; purchases: number; refunds: number; net: string }[] = await this.db.query(EarningsSeries(unit), [appIds, count]);
    const buckets = rows.map(({ start, installs, purchases, refunds, net }) => ({ start, installs, purchases, refunds, netEarningsVnd: toSafeInteger(net) }));
    return { period, buckets, totalNetEarningsVnd: toSafeInteger(buckets.reduce((sum, b) => sum + b.netEarningsVnd, 0)) };
  }

  /** Platform deliveries per minute and failure rate, the review queue's ages, the apps failing most. */
  async platformStats(source: StatsSource = 'rollup'): Promise<PlatformStats> {
    const minutes: { start: Date; succeeded: number; failed: number }[] =
      source === 'raw' ? await this.db.query(PlatformNumbers.minutesRaw, [INTERRUPTED]) : await this.db.query(PlatformNumbers.minutesRollup);
    const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
    const all = minutes.reduce((sum, m) => sum + m.failed + m.succeeded, 0);
    const queue: { app_id: string; name: string; submitted_at: Date }[] = await this.db.query(PlatformNumbers.reviewQueue);
    const now = Date.now();
    const failing: { app_id: string; name: string; failed: number; attempts: number }[] =
      source === 'raw' ? await this.db.query(PlatformNumbers.failingRaw, [INTERRUPTED]) : await this.db.query(PlatformNumbers.failingRollup);
    return {
      deliveriesPerMinute: minutes,
      failureRate: ratio(failed, all),
      reviewQueue: queue.map((row) => {
        const waitingMs = Math.max(0, now - row.submitted_at.getTime());
        return { appId: row.app_id, appName: row.name, submittedAt: row.submitted_at, waitingHours: waitingMs / 3_600_000, overdue: waitingMs > REVIEW_DUE_AFTER_MS };
      }),
      appsFailingMost: failing.map((row): FailingApp => ({
        appId: row.app_id,
        appName: row.name,
        failedAttempts: row.failed,
        attempts: row.attempts,
        failureRate: row.failed / row.attempts,
      })),
    };
  }
}
