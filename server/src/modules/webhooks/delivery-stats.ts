import type { DataSource } from 'typeorm';
import { queryPrepared } from '../../platform/prepared-query.js';
import { INTERRUPTED } from './delivery/sql-fragments.js';
import { DeliveryStats, PlatformDeliveries } from './delivery-stats.queries.js';

/** Where delivery numbers come from: the rollup kept for the charts, or the attempts themselves (the reference, and the "before" of the bench). */
export type StatsSource = 'rollup' | 'raw';

export interface AttemptCounts {
  start: Date;
  succeeded: number;
  failed: number;
}

/**
 * The delivery numbers behind the charts, read by the feature whose tables they count (the insights
 * feature shapes them). Callers have checked who may ask for which apps.
 */
export class DeliveryStatsReader {
  constructor(private readonly db: DataSource) {}

  /**
   * Attempts of `appIds` per hour over the last `hours`, with the window's p50/p95 latency: from the rollup's
   * summed histogram, or exact from the attempts (raw).
   */
  async hourly(
    appIds: string[],
    hours: number,
    source: StatsSource,
  ): Promise<{ buckets: AttemptCounts[]; p50: number | null; p95: number | null; latencyCounts: number[] | null }> {
    if (source === 'raw') {
      const raw: (AttemptCounts & { p50: number | null; p95: number | null })[] = await this.db.query(DeliveryStats.raw, [appIds, hours, INTERRUPTED]);
      return { buckets: raw, p50: raw[0]?.p50 ?? null, p95: raw[0]?.p95 ?? null, latencyCounts: null };
    }
    const kept: (AttemptCounts & { latency_counts: number[] | null })[] = await queryPrepared(this.db.manager, 'plaza_insights_delivery_stats', DeliveryStats.rollup, [
      appIds,
      hours,
    ]);
    // The window's summed histogram rides on the first row (one statement, one round trip).
    return { buckets: kept, p50: null, p95: null, latencyCounts: kept[0]?.latency_counts ?? [] };
  }

  /** Every app's attempts per minute over the last 60 minutes. */
  perMinute(source: StatsSource): Promise<AttemptCounts[]> {
    return source === 'raw' ? this.db.query(PlatformDeliveries.minutesRaw, [INTERRUPTED]) : this.db.query(PlatformDeliveries.minutesRollup);
  }

  /** The `limit` apps with the most failed attempts over the last 24 hours, most first. */
  async failingMost(limit: number, source: StatsSource): Promise<{ appId: string; failed: number; attempts: number }[]> {
    const rows: { app_id: string; failed: number; attempts: number }[] =
      source === 'raw' ? await this.db.query(PlatformDeliveries.failingRaw, [limit, INTERRUPTED]) : await this.db.query(PlatformDeliveries.failingRollup, [limit]);
    return rows.map((row) => ({ appId: row.app_id, failed: row.failed, attempts: row.attempts }));
  }
}
