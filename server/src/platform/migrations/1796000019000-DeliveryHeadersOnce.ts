import type { MigrationInterface, QueryRunner } from 'typeorm';

// Written out as they were when this migration was made (delivery/request-headers-sql.ts), so that it keeps doing what it did.
const PER_ATTEMPT = `'{x-platform-attempt,webhook-timestamp,webhook-signature}'::text[]`;
const EXPECTED_FOR_DELIVERY = (id: string) =>
  `jsonb_build_object('content-type', 'application/json', 'user-agent', 'Plaza-Webhooks/1.0', 'x-platform-delivery', ${id}, 'webhook-id', ${id})`;
const EXPECTED_FOR_ATTEMPT = (shared: string, id: string, number: string, startedAt: string) =>
  `jsonb_strip_nulls(${EXPECTED_FOR_DELIVERY(id)} || jsonb_build_object('x-platform-attempt', ${number}::text, 'webhook-timestamp', floor(extract(epoch FROM ${startedAt}))::bigint::text) || COALESCE(${shared}, '{}'::jsonb))`;
const DIFFERENCES = (headers: string, expected: string) => `CASE WHEN ${headers} IS NULL THEN NULL
         WHEN ${headers} = ${expected} || jsonb_build_object('webhook-signature', ${headers} -> 'webhook-signature')
           THEN jsonb_build_object('webhook-signature', ${headers} -> 'webhook-signature')
         ELSE COALESCE((
         SELECT jsonb_object_agg(c.key, c.value) FROM (
           SELECT sent.key, sent.value FROM jsonb_each(${headers}) sent WHERE (${expected}) -> sent.key IS DISTINCT FROM sent.value
           UNION ALL
           SELECT unsent.key, 'null'::jsonb FROM jsonb_each(${expected}) unsent WHERE NOT (${headers} ? unsent.key)) c), '{}'::jsonb) END`;

/**
 * Request headers once per delivery instead of per attempt: about half of an attempt row was
 * its headers, most of them the same on every attempt or known from the delivery and the attempt. The
 * shared part moves to webhook_request_headers (one insert-only row per delivery sent); each attempt
 * keeps only what differs (delivery/request-headers-sql.ts). Existing rows are
 * carried over: the attempts table is rebuilt rather than updated in place, which would leave every old
 * version behind and make the table larger, not smaller. Its other indexes and storage options are
 * carried over as found.
 */
export class DeliveryHeadersOnce1796000019000 implements MigrationInterface {
  name = 'DeliveryHeadersOnce1796000019000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_request_headers" ("delivery_id" text NOT NULL, "headers" jsonb NOT NULL, CONSTRAINT "PK_webhook_request_headers" PRIMARY KEY ("delivery_id"))`,
    );
    // The shared part is what the first attempt sent, less the headers that change on every attempt and those every delivery sends.
    await queryRunner.query(
      `INSERT INTO webhook_request_headers (delivery_id, headers)
       SELECT f.delivery_id, ${DIFFERENCES(`(f.request_headers - ${PER_ATTEMPT})`, 'x.expected')}
         FROM (SELECT DISTINCT ON (delivery_id) delivery_id, request_headers FROM webhook_attempts WHERE request_headers IS NOT NULL ORDER BY delivery_id, number) f
              -- OFFSET 0: computed once per row, not again for every header compared (40x slower).
              CROSS JOIN LATERAL (SELECT ${EXPECTED_FOR_DELIVERY('f.delivery_id')} AS expected OFFSET 0) x`,
    );

    const [{ reloptions }]: [{ reloptions: string[] | null }] = await queryRunner.query(`SELECT reloptions FROM pg_class WHERE oid = 'webhook_attempts'::regclass`);
    const [primaryKey]: [{ name: string; definition: string }] = await queryRunner.query(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'webhook_attempts'::regclass AND contype = 'p'`,
    );
    const otherIndexes: { definition: string }[] = await queryRunner.query(
      `SELECT pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'webhook_attempts'::regclass AND NOT indisprimary`,
    );
    await queryRunner.query(`CREATE TABLE "webhook_attempts_compact" (LIKE "webhook_attempts" INCLUDING DEFAULTS INCLUDING STORAGE)`);
    if (reloptions?.length) await queryRunner.query(`ALTER TABLE "webhook_attempts_compact" SET (${reloptions.join(', ')})`);
    const columns: { name: string }[] = await queryRunner.query(
      `SELECT quote_ident(attname) AS name FROM pg_attribute WHERE attrelid = 'webhook_attempts'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    );
    const list = columns.map((c) => c.name).join(', ');
    const select = columns.map((c) => (c.name === 'request_headers' ? DIFFERENCES('a.request_headers', 'x.expected') : `a.${c.name}`)).join(', ');
    await queryRunner.query(
      `INSERT INTO webhook_attempts_compact (${list})
       SELECT ${select} FROM webhook_attempts a LEFT JOIN webhook_request_headers h ON h.delivery_id = a.delivery_id
              CROSS JOIN LATERAL (SELECT ${EXPECTED_FOR_ATTEMPT('h.headers', 'a.delivery_id', 'a.number', 'a.started_at')} AS expected OFFSET 0) x
        ORDER BY a.delivery_id, a.number`,
    );
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
    await queryRunner.query(`ALTER TABLE "webhook_attempts_compact" RENAME TO "webhook_attempts"`);
    await queryRunner.query(`ALTER TABLE "webhook_attempts" ADD CONSTRAINT "${primaryKey.name}" ${primaryKey.definition}`);
    for (const index of otherIndexes) await queryRunner.query(index.definition);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE webhook_attempts a
          SET request_headers = jsonb_strip_nulls(${EXPECTED_FOR_ATTEMPT('h.headers', 'a.delivery_id', 'a.number', 'a.started_at')} || a.request_headers)
         FROM webhook_attempts a2 LEFT JOIN webhook_request_headers h ON h.delivery_id = a2.delivery_id
        WHERE a2.delivery_id = a.delivery_id AND a2.number = a.number AND a.request_headers IS NOT NULL`,
    );
    await queryRunner.query(`DROP TABLE "webhook_request_headers"`);
  }
}
