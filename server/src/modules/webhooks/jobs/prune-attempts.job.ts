import type { Agenda } from 'agenda';
import type { DataSource } from 'typeorm';
import { logger } from '../../../platform/logger.js';
import { ensureAttemptPartitions, pruneOldAttempts, pruneOldRollups } from '../attempt-retention.js';
import { pruneOldBodies } from '../body-retention.js';

export const PRUNE_ATTEMPTS_JOB = 'prune-webhook-attempts';
export const PRUNE_INTERVAL = '1 hour';

/**
 * Keeps Webhook Logs to WEBHOOK_ATTEMPT_RETENTION, their bodies to WEBHOOK_BODY_RETENTION, the charts' rollups to a
 * week and a day, and the partitions made ahead of time: hourly, one worker at a time (Agenda locks the job).
 */
export function definePruneAttemptsJob(agenda: Agenda, db: DataSource, retentionMs: number, isStopping: () => boolean, bodyRetentionMs: number | null = null) {
  agenda.define(PRUNE_ATTEMPTS_JOB, async () => {
    try {
      const created = await ensureAttemptPartitions(db);
      if (created.length) logger.info({ created }, 'created webhook attempt partitions ahead');
      const deleted = await pruneOldAttempts(db, retentionMs, Date.now(), isStopping);
      if (deleted > 0) logger.info({ deleted, retentionMs }, 'deleted webhook attempts past their retention');
      await pruneOldBodies(db, bodyRetentionMs, Date.now(), isStopping);
      await pruneOldRollups(db);
    } catch (err) {
      (err as Error).message = `${PRUNE_ATTEMPTS_JOB}: ${(err as Error).message}`;
      throw err;
    }
  });
}
