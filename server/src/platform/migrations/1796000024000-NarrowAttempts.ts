import type { MigrationInterface, QueryRunner } from 'typeorm';

// Written out as they were when this migration was made (delivery/request-headers-sql.ts), so that it keeps doing what it did.
const SIGNATURE = (kept: string) => `${kept} ->> 'webhook-signature'`;
/** The signature's 32 bytes when `kept` is exactly one `v1,` signature in canonical base64; null otherwise (decode only sees valid base64). */
const COMPACT_SIGNATURE = (kept: string) => `CASE WHEN ${kept} = jsonb_build_object('webhook-signature', ${kept} -> 'webhook-signature')
           AND ${SIGNATURE(kept)} ~ '^v1,[A-Za-z0-9+/]{43}=$'
         THEN CASE WHEN encode(decode(substr(${SIGNATURE(kept)}, 4), 'base64'), 'base64') = substr(${SIGNATURE(kept)}, 4)
           THEN decode(substr(${SIGNATURE(kept)}, 4), 'base64') END END`;

/**
 * Narrower attempt rows. The webhook URL, the same on nearly every attempt of a delivery, is
 * kept once with its shared headers (webhook_request_headers.url) and on an attempt only when it differs;
 * the usual lone timestamped signature is kept as its 32 bytes (webhook_attempts.request_signature)
 * instead of about 80 bytes of JSON. Existing rows are moved to that shape in place (plain ALTER and
 * UPDATE, so that it works on partitioned tables as on plain ones); the old row versions are left for
 * VACUUM to reuse, so the files shrink only as new attempts fill them (or after VACUUM FULL).
 */
export class NarrowAttempts1796000024000 implements MigrationInterface {
  name = 'NarrowAttempts1796000024000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" ADD COLUMN "url" text`);
    await queryRunner.query(`ALTER TABLE "webhook_attempts" ADD COLUMN "request_signature" bytea`);
    // The delivery's URL is its first attempt sent's, as the shared headers are (1796000019000).
    await queryRunner.query(
      `UPDATE webhook_request_headers h SET url = f.url
         FROM (SELECT DISTINCT ON (delivery_id) delivery_id, url FROM webhook_attempts WHERE request_headers IS NOT NULL ORDER BY delivery_id, number) f
        WHERE f.delivery_id = h.delivery_id AND f.url IS NOT NULL`,
    );
    // Each sent attempt (headers not null) drops a URL equal to its delivery's and turns a lone usual signature into bytes; one
    // not sent keeps its URL as it is, so that a null there still reads as null. One pass, so each row gets one new version.
    await queryRunner.query(
      `UPDATE webhook_attempts a
          SET url = CASE WHEN a.url = h.url THEN NULL ELSE a.url END,
              request_signature = ${COMPACT_SIGNATURE('a.request_headers')},
              request_headers = CASE WHEN ${COMPACT_SIGNATURE('a.request_headers')} IS NULL THEN a.request_headers END
         FROM webhook_request_headers h
        WHERE h.delivery_id = a.delivery_id AND a.request_headers IS NOT NULL
          AND (a.url = h.url OR ${COMPACT_SIGNATURE('a.request_headers')} IS NOT NULL)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE webhook_attempts a
          SET url = CASE WHEN a.url IS NULL THEN h.url ELSE a.url END,
              request_headers = CASE WHEN a.request_signature IS NOT NULL THEN jsonb_build_object('webhook-signature', 'v1,' || encode(a.request_signature, 'base64'))
                                     ELSE a.request_headers END
         FROM webhook_request_headers h
        WHERE h.delivery_id = a.delivery_id AND (a.request_headers IS NOT NULL OR a.request_signature IS NOT NULL)`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_attempts" DROP COLUMN "request_signature"`);
    await queryRunner.query(`ALTER TABLE "webhook_request_headers" DROP COLUMN "url"`);
  }
}
