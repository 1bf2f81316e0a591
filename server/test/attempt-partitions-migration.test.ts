import { afterAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { newPurchaseId, newWebhookId } from '../src/platform/ids.js';
import { PARTITION_SPAN_MS, partitionName, spanStart } from '../src/platform/time-partitions.js';
import { webhookHeaders } from '../src/modules/webhooks/webhook-signing.js';
import { splitHeaders } from '../src/modules/webhooks/delivery/request-headers.js';
import { ADMIN_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { DELIVERY } from './helpers/webhooks.js';

const MINE = 'TimePartitionedAttempts1796000023000';
const DAY = 86_400_000;
const asMap = (headers: { name: string; value: string }[]) => Object.fromEntries(headers.map((h) => [h.name, h.value]));

describe('migration 1796000023000 on a populated database', () => {
  let plaza: TestPlaza | undefined;

  afterAll(async () => {
    await plaza?.stop();
  });

  it('partitions attempts and headers by time with every row as it was, in its span’s partition, and the log reads them back the same', async () => {
    const url = await createTestDatabase();
    const migrate = (migrations: typeof MIGRATIONS) => migratedDataSource(url, migrations);
    const mine = migrationIndex(MINE);
    expect(mine).toBeGreaterThan(0);
    const old = await migrate(MIGRATIONS.slice(0, mine));

    const appId = 'app_01KMIGRATIONPARTITIONS00A';
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    await old.query(
      `INSERT INTO apps (id, owner_id, name, short_description, icon_url, app_url, category, pricing, webhook_url, status, submitted_at, review_due_at)
       VALUES ($1, 'dev_owner', 'Partitioned', 'an app', 'https://a.example/i.png', 'https://a.example/', 'utilities', 'FREE', 'https://hooks.example/plaza', 'APPROVED', now(), now())`,
      [appId],
    );
    // Deliveries of three days (two days ago, yesterday, today), each with attempts and headers as the engine stored them until now.
    const now = Date.now();
    type Seeded = { id: string; at: number; attempts: { number: number; startedAt: number; headers: Record<string, string> }[] };
    const seeded: Seeded[] = [];
    for (const daysAgo of [2, 2, 1, 0]) {
      const at = now - daysAgo * DAY - seeded.length * 1000;
      const id = newWebhookId.delivery(at);
      const eventId = newWebhookId.event(at);
      const purchaseId = newPurchaseId(at);
      await old.query(`INSERT INTO webhook_events (id, type, app_id, user_id, purchase_id, payload, created_at) VALUES ($1, 'app.purchased', $2, 'usr_1', $3, '{}', $4)`, [
        eventId,
        appId,
        purchaseId,
        new Date(at),
      ]);
      const attempts = [1, 2].map((number) => {
        const startedAt = at + number * 2000;
        return {
          number,
          startedAt,
          headers: webhookHeaders({ deliveryId: id, eventName: 'app.purchased', attemptNumber: number, body: `body of ${id}`, clientSecret: secret, now: new Date(startedAt) }),
        };
      });
      await old.query(
        `INSERT INTO webhook_deliveries (id, event_id, app_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, created_at, updated_at)
         VALUES ($1, $2, $3, 'app.purchased', $4, 'FAILED', 2, 2, $5, $5)`,
        [id, eventId, appId, purchaseId, new Date(at)],
      );
      for (const a of attempts) {
        const { shared, kept } = splitHeaders(a.headers, id, a.number, new Date(a.startedAt));
        if (a.number === 1) await old.query(`INSERT INTO webhook_request_headers (delivery_id, headers) VALUES ($1, $2)`, [id, shared]);
        await old.query(
          `INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, duration_ms, status_code, error, response_body_excerpt, url, request_headers, finished)
           VALUES ($1, $2, 'SCHEDULED', $3, 25, 500, 'HTTP 500', '{"no":1}', 'https://hooks.example/plaza', $4, true)`,
          [id, a.number, new Date(a.startedAt), kept],
        );
      }
      seeded.push({ id, at, attempts });
    }
    const everything = async (db: DataSource) => ({
      attempts: await db.query(`SELECT * FROM webhook_attempts ORDER BY delivery_id, number`),
      headers: await db.query(`SELECT * FROM webhook_request_headers ORDER BY delivery_id`),
      keys: await db.query(
        `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE conrelid IN ('webhook_attempts'::regclass, 'webhook_request_headers'::regclass) ORDER BY 1, 2`,
      ),
      columns: await db.query(
        `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default FROM information_schema.columns
          WHERE table_name IN ('webhook_attempts', 'webhook_request_headers') ORDER BY table_name, ordinal_position`,
      ),
    });
    const before = await everything(old);
    expect(before.attempts).toHaveLength(8);
    await old.destroy();

    const migrated = await migrate(MIGRATIONS.slice(0, mine + 1));
    try {
      // Same columns in the same order, same rows, same keys.
      expect(await everything(migrated)).toEqual(before);
      for (const table of ['webhook_attempts', 'webhook_request_headers']) {
        const [{ kind }] = await migrated.query(`SELECT relkind AS kind FROM pg_class WHERE oid = $1::regclass`, [table]);
        expect(kind).toBe('p');
        const partitions: { name: string; reloptions: string[] | null }[] = await migrated.query(
          `SELECT c.relname AS name, c.reloptions FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
          [table],
        );
        // From the oldest row's span to a few spans ahead, and the default partition.
        const spans: string[] = [];
        for (let start = spanStart(now - 2 * DAY); start < now + 3 * PARTITION_SPAN_MS; start += PARTITION_SPAN_MS)
          spans.push(partitionName({ table, keyColumn: 'delivery_id', idPrefix: 'dlv_' }, start));
        expect(partitions.map((p) => p.name).sort()).toEqual([...spans, `${table}_default`].sort());
        // The attempts keep room on each page for the update that records an outcome, as the table had.
        if (table === 'webhook_attempts') for (const p of partitions) expect(p.reloptions, p.name).toEqual(['fillfactor=70']);
        // Each row in its delivery's span.
        const placed: { delivery_id: string; part: string }[] = await migrated.query(`SELECT delivery_id, tableoid::regclass::text AS part FROM ${table}`);
        expect(placed).toHaveLength(table === 'webhook_attempts' ? 8 : 4);
        for (const row of placed)
          expect(row.part).toBe(partitionName({ table, keyColumn: 'delivery_id', idPrefix: 'dlv_' }, spanStart(seeded.find((s) => s.id === row.delivery_id)!.at)));
      }
    } finally {
      await migrated.destroy();
    }

    // Through the API, with every later migration applied: each attempt's headers exactly as sent.
    plaza = await startTestPlaza({ DATABASE_URL: url, RUN_WORKER: 'false' });
    const admin = await plaza.signIn(ADMIN_EMAIL);
    for (const d of seeded) {
      const logged = (await admin.ok<{ webhookDelivery: any }>(DELIVERY, { id: d.id })).webhookDelivery;
      expect(logged.attempts.map((a: any) => [a.number, a.statusCode, a.url, new Date(a.startedAt).getTime()])).toEqual(
        d.attempts.map((a) => [a.number, 500, 'https://hooks.example/plaza', a.startedAt]),
      );
      expect(logged.attempts.map((a: any) => asMap(a.requestHeaders))).toEqual(d.attempts.map((a) => a.headers));
    }
  });
});
