import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withShortLocks } from './short-locks.js';

/**
 * Endpoints (expand): an app sends its events to up to WEBHOOK_ENDPOINTS_PER_APP destinations, each with
 * its events, state and pace. Every app with a Webhook URL gets one endpoint made from it, whose id is the
 * app's ULID under `ep_` (so every delivery recorded before, which went to that URL, names it without a
 * lookup). webhook_deliveries gains endpoint_id: the next migration fills it in small batches; meanwhile,
 * and for as long as a release before endpoints still records deliveries (a rolling upgrade), a trigger
 * fills it on insert from the app's first endpoint. The app's webhook_url, webhook_events and
 * webhook_state stay, kept equal to its first endpoint by this release, so that the previous release's
 * workers keep sending where they did.
 */
export class WebhookEndpoints1796000028000 implements MigrationInterface {
  name = 'WebhookEndpoints1796000028000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The events it receives are GraphQL enum names, null for every event (those added later too).
    await queryRunner.query(`CREATE TABLE "webhook_endpoints" ("id" text NOT NULL, "app_id" text NOT NULL, "url" text NOT NULL,
        "description" text, "events" text array, "state" text NOT NULL DEFAULT 'ENABLED', "rate_limit_per_second" integer,
        "pace_next_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_webhook_endpoints" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE INDEX "idx_webhook_endpoints_app" ON "webhook_endpoints" ("app_id", "created_at", "id")`);
    // An app that chose all four events receives every event, as a new endpoint does by default.
    await queryRunner.query(`INSERT INTO webhook_endpoints (id, app_id, url, events, state, created_at, updated_at)
        SELECT 'ep_' || substr(id, 5), id, webhook_url,
               CASE WHEN webhook_events @> '{APP_PURCHASED,APP_INSTALLED,APP_UNINSTALLED,APP_REFUNDED}' THEN NULL ELSE webhook_events END,
               webhook_state, created_at, now()
          FROM apps WHERE webhook_url IS NOT NULL`);
    // Failure runs are kept per endpoint; an app's run so far becomes its endpoint's. webhook_health stays for the
    // previous release's workers until a later release drops it.
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoint_health" ("endpoint_id" text NOT NULL, "app_id" text NOT NULL, "failing_since" TIMESTAMP WITH TIME ZONE, "last_failure_at" TIMESTAMP WITH TIME ZONE,
        "last_error" text, "failed_deliveries" integer NOT NULL DEFAULT 0, "alerted_at" TIMESTAMP WITH TIME ZONE, "alert_open" boolean NOT NULL DEFAULT false,
        "recovered_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_webhook_endpoint_health" PRIMARY KEY ("endpoint_id"))`,
    );
    await queryRunner.query(`INSERT INTO webhook_endpoint_health (endpoint_id, app_id, failing_since, last_failure_at, last_error, failed_deliveries, alerted_at, alert_open, recovered_at)
        SELECT e.id, h.app_id, h.failing_since, h.last_failure_at, h.last_error, h.failed_deliveries, h.alerted_at, h.alert_open, h.recovered_at
          FROM webhook_health h JOIN webhook_endpoints e ON e.id = 'ep_' || substr(h.app_id, 5)`);
    await queryRunner.query(`CREATE FUNCTION plaza_delivery_endpoint() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          -- Recorded by a release before endpoints: it went to the app's Webhook URL, its first endpoint.
          NEW.endpoint_id := COALESCE((SELECT e.id FROM webhook_endpoints e WHERE e.app_id = NEW.app_id ORDER BY e.created_at, e.id LIMIT 1),
                                      'ep_' || substr(NEW.app_id, 5));
          RETURN NEW;
        END $$`);
    // Catalog-only changes, but each takes the table's lock: waited for at most a second at a time.
    await withShortLocks(queryRunner, [
      `ALTER TABLE "webhook_deliveries" ADD COLUMN "endpoint_id" text`,
      `CREATE TRIGGER webhook_deliveries_endpoint BEFORE INSERT ON webhook_deliveries
         FOR EACH ROW WHEN (NEW.endpoint_id IS NULL) EXECUTE FUNCTION plaza_delivery_endpoint()`,
    ]);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await withShortLocks(queryRunner, [`DROP TRIGGER webhook_deliveries_endpoint ON webhook_deliveries`, `ALTER TABLE "webhook_deliveries" DROP COLUMN "endpoint_id"`]);
    await queryRunner.query(`DROP FUNCTION plaza_delivery_endpoint()`);
    await queryRunner.query(`DROP TABLE "webhook_endpoint_health"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
  }
}
