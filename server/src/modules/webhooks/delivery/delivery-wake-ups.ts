import type { DataSource } from 'typeorm';
import { logger } from '../../../platform/logger.js';

/** Workers LISTEN here; a delivery committed anywhere wakes them at once (DeliveryRunner.onDue). */
export const DELIVERIES_DUE_CHANNEL = 'plaza_deliveries_due';

/** Wake-ups within this window share one NOTIFY. */
const WAKE_COALESCE_MS = 2;

/**
 * The producers' side of the wake-ups: a NOTIFY to the delivery workers after deliveries commit.
 * Not inside the committing transaction: PostgreSQL serialises the commits of transactions that
 * notify (a global lock held through the fsync). Coalesced; the workers' one-second check covers a
 * wake-up that is lost.
 */
export class DeliveryWakeUps {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: DataSource) {}

  notify(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.db
        .query('SELECT pg_notify($1, $2)', [DELIVERIES_DUE_CHANNEL, ''])
        .catch((err) => logger.warn({ err }, 'could not wake the delivery workers; their one-second check will'));
    }, WAKE_COALESCE_MS);
  }
}
