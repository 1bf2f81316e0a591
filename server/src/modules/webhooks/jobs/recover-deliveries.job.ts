import type { Agenda } from 'agenda';
import { logger } from '../../../platform/logger.js';

export const RECOVER_DELIVERIES_JOB = 'recover-webhook-deliveries';
export const RECOVERY_INTERVAL = '15 seconds';

/**
 * The safety net under at-least-once: every 15 seconds, close attempts that a dead process left
 * open (`recover`, the log service's) and make sure due deliveries whose claim has expired get a delivery run.
 */
export function defineRecoverDeliveriesJob(agenda: Agenda, recover: () => Promise<{ closedAttempts: number; dueDeliveries: number }>, ensureDeliveryRun: () => void) {
  agenda.define(RECOVER_DELIVERIES_JOB, async () => {
    const { closedAttempts, dueDeliveries } = await recover();
    if (closedAttempts > 0) logger.warn({ closedAttempts }, 'closed attempts interrupted by a stopped worker');
    if (dueDeliveries > 0) ensureDeliveryRun();
  });
}
