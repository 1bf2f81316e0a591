import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LATENCY_BOUNDS_MS, LATENCY_SLOTS } from '../latency-histogram.js';

/** The error an interrupted attempt was closed with (delivery-queries.ts INTERRUPTED), as it was written then. */
const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/** Attempts with an outcome, by app and the `unit` they finished in, with their latency slot (width_bucket counts the bounds at or below: latencySlot). */
const FINISHED_ATTEMPTS = (unit: 'hour' | 'minute', since: string) => `SELECT d.app_id, date_trunc('${unit}', a.started_at + a.duration_ms * interval '1 millisecond', 'UTC') AS at,
              a.error IS NULL AS ok, width_bucket(a.duration_ms, $1::int[]) AS slot
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.finished AND a.error IS DISTINCT FROM $2 AND a.started_at + a.duration_ms * interval '1 millisecond' >= ${since}`;

/**
 * The charts' numbers kept for the purpose: webhook attempts per app and hour (counts by
 * outcome and a latency histogram, for webhookDeliveryStats and the apps failing most) and per minute
 * for the whole platform (counts, for its last hour: one row a minute, so a batch adds to one or two),
 * added to with each batch of attempt results; filled here from the attempts already recorded. Indexes for the earnings series per app over time.
 */
export class DeliveryRollups1796000017000 implements MigrationInterface {
  name = 'DeliveryRollups1796000017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_attempt_hourly" ("app_id" text NOT NULL, "hour" TIMESTAMP WITH TIME ZONE NOT NULL, "succeeded" integer NOT NULL, "failed" integer NOT NULL,
        "latency_counts" integer[] NOT NULL, CONSTRAINT "PK_webhook_attempt_hourly" PRIMARY KEY ("app_id", "hour"))`,
    );
    // The apps failing most read every app's last 24 hours.
    await queryRunner.query(`CREATE INDEX "IDX_webhook_attempt_hourly_hour" ON "webhook_attempt_hourly" ("hour")`);
    await queryRunner.query(
      `CREATE TABLE "webhook_attempt_minutely" ("minute" TIMESTAMP WITH TIME ZONE NOT NULL, "succeeded" integer NOT NULL, "failed" integer NOT NULL,
        CONSTRAINT "PK_webhook_attempt_minutely" PRIMARY KEY ("minute"))`,
    );
    const bounds = [...LATENCY_BOUNDS_MS];
    // Eight days back, what the rollups keep (attempt-retention.ts); the histogram has a zero for every slot.
    await queryRunner.query(
      `WITH done AS (${FINISHED_ATTEMPTS('hour', `date_trunc('hour', now(), 'UTC') - interval '8 days'`)}),
            per_slot AS (SELECT app_id, at, slot, count(*)::int AS n FROM done GROUP BY 1, 2, 3),
            keys AS (SELECT app_id, at, count(*) FILTER (WHERE ok)::int AS succeeded, count(*) FILTER (WHERE NOT ok)::int AS failed FROM done GROUP BY 1, 2)
       INSERT INTO webhook_attempt_hourly (app_id, hour, succeeded, failed, latency_counts)
       SELECT k.app_id, k.at, k.succeeded, k.failed,
              ARRAY(SELECT coalesce(s.n, 0) FROM generate_series(0, ${LATENCY_SLOTS - 1}) g LEFT JOIN per_slot s ON s.app_id = k.app_id AND s.at = k.at AND s.slot = g ORDER BY g)
         FROM keys k`,
      [bounds, INTERRUPTED],
    );
    await queryRunner.query(
      `WITH done AS (${FINISHED_ATTEMPTS('minute', `date_trunc('minute', now()) - interval '1 day'`)})
       INSERT INTO webhook_attempt_minutely (minute, succeeded, failed)
       SELECT at, count(*) FILTER (WHERE ok)::int, count(*) FILTER (WHERE NOT ok)::int FROM done GROUP BY 1`,
      [bounds, INTERRUPTED],
    );
    await queryRunner.query(`CREATE INDEX "idx_installations_app_time" ON "installations" ("app_id", "installed_at")`);
    await queryRunner.query(`CREATE INDEX "idx_revenue_ledger_app_time" ON "revenue_ledger" ("app_id", "created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_revenue_ledger_app_time"`);
    await queryRunner.query(`DROP INDEX "idx_installations_app_time"`);
    await queryRunner.query(`DROP TABLE "webhook_attempt_minutely"`);
    await queryRunner.query(`DROP TABLE "webhook_attempt_hourly"`);
  }
}
