import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The error an interrupted attempt was closed with (delivery-queries.ts INTERRUPTED), as it was written then. */
const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/**
 * Webhook attempts per endpoint and hour (counts by outcome, and when the latest started), added to with each
 * batch of attempt results beside the per-app rollup: what WebhookEndpoint.health reads its last day's success
 * rate from, a few rows per endpoint instead of its attempts. Filled here with the last 24 hourly buckets from
 * the attempts already recorded (all that is read of it). A release before this one does not write it: while it
 * runs beside this one (a rolling upgrade), the attempts it records are not counted per endpoint.
 */
export class EndpointHourly1796000030000 implements MigrationInterface {
  name = 'EndpointHourly1796000030000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoint_hourly" ("endpoint_id" text NOT NULL, "hour" TIMESTAMP WITH TIME ZONE NOT NULL, "succeeded" integer NOT NULL, "failed" integer NOT NULL,
        "last_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_webhook_endpoint_hourly" PRIMARY KEY ("endpoint_id", "hour"))`,
    );
    await queryRunner.query(
      `INSERT INTO webhook_endpoint_hourly (endpoint_id, hour, succeeded, failed, last_attempt_at)
       SELECT d.endpoint_id, date_trunc('hour', a.started_at + a.duration_ms * interval '1 millisecond', 'UTC'),
              count(*) FILTER (WHERE a.error IS NULL)::int, count(*) FILTER (WHERE a.error IS NOT NULL)::int, max(a.started_at)
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.endpoint_id IS NOT NULL AND a.finished AND a.error IS DISTINCT FROM $1
          AND a.started_at + a.duration_ms * interval '1 millisecond' >= date_trunc('hour', now(), 'UTC') - interval '23 hours'
        GROUP BY 1, 2`,
      [INTERRUPTED],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_endpoint_hourly"`);
  }
}
