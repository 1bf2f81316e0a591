import type { MigrationInterface, QueryRunner } from 'typeorm';

// Written out as they were when this migration was made (delivery/request-headers-sql.ts compactSharedOnce, storedShared), so that it keeps doing what it did.
const SIGNATURE = (headers: string) => `${headers} ->> 'x-platform-signature'`;
/** The body signature's 32 bytes when `headers` hold it as `sha256=` and 64 lowercase hex digits; null otherwise. */
const BODY_SIGNATURE = (headers: string) => `CASE WHEN ${SIGNATURE(headers)} ~ '^sha256=[0-9a-f]{64}$' THEN decode(substr(${SIGNATURE(headers)}, 8), 'hex') END`;
/** `headers` without what BODY_SIGNATURE takes, without the event header when it is `eventType`, with a JSON null for it when it was not sent. */
const REST = (headers: string, eventType: string) => {
  const others = `CASE WHEN ${BODY_SIGNATURE(headers)} IS NULL THEN ${headers} ELSE ${headers} - 'x-platform-signature' END`;
  return `CASE WHEN NOT (${headers} ? 'x-platform-event') THEN (${others}) || jsonb_build_object('x-platform-event', null)
               WHEN ${headers} -> 'x-platform-event' = to_jsonb(${eventType}::text) THEN (${others}) - 'x-platform-event'
               ELSE ${others} END`;
};
/** What the row keeps as JSON: REST, or null when the signature went to bytes and nothing else is left. */
const HEADERS = (headers: string, eventType: string) =>
  `CASE WHEN ${BODY_SIGNATURE(headers)} IS NOT NULL AND (${REST(headers, eventType)}) = '{}'::jsonb THEN NULL ELSE ${REST(headers, eventType)} END`;

/**
 * The shared request headers kept compactly: webhook_request_headers held about 145 bytes of
 * JSON per delivery for two headers, the body signature (`sha256=` and 64 hex digits) and the event
 * (which the delivery's event_type already says). Now the usual body signature is its 32 bytes
 * (body_signature), the event header is not stored when it is the delivery's event type (a JSON null
 * marks one not sent), and `headers` is JSON only for anything else, null when nothing is left. Reads
 * compose them back exactly (request-headers-sql.ts storedShared). Existing rows are moved in place with
 * plain ALTER and UPDATE, which work on the partitioned parent as on a plain table; each row gets one
 * new version, and the old ones are left for VACUUM to reuse.
 */
export class CompactSharedHeaders1796000027000 implements MigrationInterface {
  name = 'CompactSharedHeaders1796000027000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" ADD COLUMN "body_signature" bytea`);
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" ALTER COLUMN "headers" DROP NOT NULL`);
    // A row of a delivery that is there reads its event type; the join lets PostgreSQL hash it rather than look each one up.
    await queryRunner.query(
      `UPDATE webhook_request_headers h SET body_signature = ${BODY_SIGNATURE('h.headers')}, headers = ${HEADERS('h.headers', 'd.event_type')}
         FROM webhook_deliveries d WHERE d.id = h.delivery_id`,
    );
    // A row without its delivery (none is written so) keeps its event header as it is, whatever it says.
    await queryRunner.query(
      `UPDATE webhook_request_headers h SET body_signature = ${BODY_SIGNATURE('h.headers')}, headers = ${HEADERS('h.headers', 'NULL')}
        WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = h.delivery_id)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Every row's JSON whole again: as storedShared reads it.
    const whole = (eventType: string) => `(CASE WHEN h.headers -> 'x-platform-event' = 'null'::jsonb THEN h.headers - 'x-platform-event'
                  ELSE jsonb_build_object('x-platform-event', ${eventType}::text) || COALESCE(h.headers, '{}'::jsonb) END)
             || CASE WHEN h.body_signature IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('x-platform-signature', 'sha256=' || encode(h.body_signature, 'hex')) END`;
    await queryRunner.query(`UPDATE webhook_request_headers h SET headers = ${whole('d.event_type')} FROM webhook_deliveries d WHERE d.id = h.delivery_id`);
    // Without its delivery, the event header is in the JSON already (up kept it).
    await queryRunner.query(`UPDATE webhook_request_headers h SET headers = ${whole('NULL')} WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = h.delivery_id)`);
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" ALTER COLUMN "headers" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" DROP COLUMN "body_signature"`);
  }
}
