import type { DataSource } from 'typeorm';
import { toSafeInteger } from '../../platform/int64.js';
import { histogramPercentile } from '../../platform/latency-histogram.js';
import { appNamesAndOwners, appsOwnedBy, oldestPendingReview, REVIEW_DUE_AFTER_MS } from '../apps/index.js';
import type { MarketplaceService } from '../marketplace/index.js';
import type { DeliveryStatsReader, StatsSource, WebhookState } from '../webhooks/index.js';
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

export type { StatsSource };

/** Review queue entries listed at most (oldest first): a chart, not the queue itself. */
export const REVIEW_QUEUE_LIMIT = 100;
export const FAILING_APPS_LIMIT = 10;

const ratio = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/**
 * The numbers behind the charts: webhook health per app, a developer's earnings over time,
 * the platform at a glance. Callers have checked who may ask for which apps. This feature owns no table:
 * it asks the features that own the numbers (webhooks, marketplace, apps) through their indexes, and shapes them.
 */
export class InsightsService {
  constructor(
    private readonly db: DataSource,
    private readonly deliveries: DeliveryStatsReader,
    private readonly marketplace: MarketplaceService,
  ) {}

  /** The apps `ownerId` owns, with their webhook state. */
  async ownedApps(ownerId: string): Promise<{ id: string; webhookState: WebhookState }[]> {
    return (await appsOwnedBy(this.db.manager, ownerId)).map(({ id, webhookState }) => ({ id, webhookState }));
  }

  /** Deliveries of `appIds` over `window`, hourly; `webhookState` is the one app's, or null for several. */
  async deliveryStats(appIds: string[], window: StatsWindow, webhookState: WebhookState | null, source: StatsSource = 'rollup'): Promise<WebhookDeliveryStats> {
    const stats = await this.deliveries.hourly(appIds, WINDOW_HOURS[window], source);
    const latency = stats.latencyCounts ? { p50: histogramPercentile(stats.latencyCounts, 0.5), p95: histogramPercentile(stats.latencyCounts, 0.95) } : stats;
    const rows = stats.buckets;
    const buckets = rows.map(({ start, succeeded, failed }) => ({ start, succeeded, failed }));
    const succeeded = buckets.reduce((sum, b) => sum + b.succeeded, 0);
    const all = buckets.reduce((sum, b) => sum + b.succeeded + b.failed, 0);
    return { window, buckets, successRate: ratio(succeeded, all), latencyP50Ms: latency.p50, latencyP95Ms: latency.p95, webhookState };
  }

  /** Installs, purchases, refunds and net earnings of `appIds`, per period. */
  async earnings(appIds: string[], period: EarningsPeriod): Promise<DeveloperEarnings> {
    const { unit, count } = PERIOD_BUCKETS[period];
    const rows = await this.marketplace.earningsSeries(appIds, unit, count);
    const buckets = rows.map(({ start, installs, purchases, refunds, netVnd }) => ({ start, installs, purchases, refunds, netEarningsVnd: netVnd }));
    return { period, buckets, totalNetEarningsVnd: toSafeInteger(buckets.reduce((sum, b) => sum + b.netEarningsVnd, 0)) };
  }

  /** Platform deliveries per minute and failure rate, the review queue's ages, the apps failing most. */
  async platformStats(source: StatsSource = 'rollup'): Promise<PlatformStats> {
    const minutes = await this.deliveries.perMinute(source);
    const failed = minutes.reduce((sum, m) => sum + m.failed, 0);
    const all = minutes.reduce((sum, m) => sum + m.failed + m.succeeded, 0);
    const queue = await oldestPendingReview(this.db.manager, REVIEW_QUEUE_LIMIT);
    const now = Date.now();
    const failingIds = await this.deliveries.failingMost(FAILING_APPS_LIMIT, source);
    const names = await appNamesAndOwners(
      this.db.manager,
      failingIds.map((app) => app.appId),
    );
    const failing = failingIds.flatMap((app) => (names.has(app.appId) ? [{ ...app, name: names.get(app.appId)!.name }] : []));
    return {
      deliveriesPerMinute: minutes,
      failureRate: ratio(failed, all),
      reviewQueue: queue.map((row) => {
        const waitingMs = Math.max(0, now - row.submittedAt.getTime());
        return { appId: row.appId, appName: row.name, submittedAt: row.submittedAt, waitingHours: waitingMs / 3_600_000, overdue: waitingMs > REVIEW_DUE_AFTER_MS };
      }),
      appsFailingMost: failing.map((row): FailingApp => ({
        appId: row.appId,
        appName: row.name,
        failedAttempts: row.failed,
        attempts: row.attempts,
        failureRate: row.failed / row.attempts,
      })),
    };
  }
}
