import type { DataSource } from 'typeorm';
import type { DeliveryBacklog } from '../../platform/metrics.js';
import { sqlLiterals } from '../../platform/sql-literals.js';
import { OPEN_STATUSES } from './delivery/delivery-lifecycle.js';

const OPEN = sqlLiterals(...OPEN_STATUSES);

/**
 * The open deliveries as /metrics counts them, read at scrape time. webhook_deliveries is this feature's
 * table, so the figures are its statements; platform/metrics.ts gets them through app/ (it imports no
 * feature). Each uses the partial index on open deliveries, so a scrape stays cheap however long the
 * delivery history grows.
 */
export function deliveryBacklog(db: DataSource): DeliveryBacklog {
  return {
    statuses: OPEN_STATUSES,
    async openByStatus() {
      const rows: { status: string; count: number }[] = await db.query(`SELECT status, count(*)::int AS count FROM webhook_deliveries WHERE status IN (${OPEN}) GROUP BY status`);
      return new Map(rows.map((row) => [row.status, row.count]));
    },
    async due() {
      const [row]: { count: number }[] = await db.query(`SELECT count(*)::int AS count FROM webhook_deliveries WHERE status IN (${OPEN}) AND next_attempt_at <= now()`);
      return row?.count ?? 0;
    },
    async oldestDueSeconds() {
      const [row]: { late: number | null }[] = await db.query(
        `SELECT extract(epoch FROM now() - min(next_attempt_at))::float AS late FROM webhook_deliveries WHERE status IN (${OPEN}) AND next_attempt_at <= now()`,
      );
      return Math.max(0, row?.late ?? 0);
    },
  };
}
