import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { newWebhookId } from '../src/platform/ids.js';
import {
  dropPartitionsBefore,
  ensurePartitions,
  listPartitions,
  PARTITION_SPAN_MS,
  partitionBoundFor,
  partitionName,
  spanStart,
  type TimePartitionedTable,
} from '../src/platform/time-partitions.js';
import { createTestDatabase } from './helpers/database.js';

const SPAN = PARTITION_SPAN_MS;
const T: TimePartitionedTable = { table: 'things', keyColumn: 'thing_id', idPrefix: 'dlv_', storage: 'fillfactor = 70' };
let db: DataSource;

beforeAll(async () => {
  db = new DataSource({ type: 'postgres', url: await createTestDatabase() });
  await db.initialize();
  await db.query(
    `CREATE TABLE things (thing_id text NOT NULL, n int NOT NULL DEFAULT 7, keep boolean NOT NULL DEFAULT false, PRIMARY KEY (thing_id, n)) PARTITION BY RANGE (thing_id)`,
  );
});

afterAll(async () => {
  await db?.destroy();
});

/** Which partition holds each id. */
const placed = async (ids: string[]) =>
  Object.fromEntries(
    (await db.query(`SELECT thing_id, tableoid::regclass::text AS part FROM things WHERE thing_id = ANY($1::text[])`, [ids])).map((r: any) => [r.thing_id, r.part]),
  );

describe('time partitions', () => {
  it('bounds are the ULID time part of the span start, a Monday', () => {
    const at = Date.UTC(2026, 10, 26, 13, 5);
    expect(new Date(spanStart(at)).toISOString()).toBe(SPAN === 7 * 86_400_000 ? '2026-11-23T00:00:00.000Z' : '2026-11-26T00:00:00.000Z');
    expect(partitionBoundFor('dlv_', at)).toBe(newWebhookId.delivery(spanStart(at)).slice(0, 14));
    expect(partitionBoundFor('dlv_', at) < newWebhookId.delivery(at)).toBe(true);
    expect(newWebhookId.delivery(at) < partitionBoundFor('dlv_', at + SPAN)).toBe(true);
  });

  it('creates the missing partitions and a default, idempotently, also when two run at once, moving rows the default held', async () => {
    const start = spanStart(Date.UTC(2026, 0, 10));
    const names = [0, 1, 2, 3].map((k) => partitionName(T, start + k * SPAN));
    // Written before any partition covered it: it lands in the default partition, then moves.
    await ensurePartitions(db, T, start - 10 * SPAN, start - 10 * SPAN);
    const early = newWebhookId.delivery(start + 1000);
    await db.query(`INSERT INTO things (thing_id) VALUES ($1)`, [early]);
    expect(await placed([early])).toEqual({ [early]: 'things_default' });

    const [a, b] = await Promise.all([ensurePartitions(db, T, start, start + 3 * SPAN), ensurePartitions(db, T, start + SPAN, start + 4 * SPAN)]);
    expect([...a, ...b].sort()).toEqual(names);
    expect(await ensurePartitions(db, T, start, start + 4 * SPAN)).toEqual([]);
    expect(await placed([early])).toEqual({ [early]: names[0] });
    const parts = await listPartitions(db, T);
    expect(parts.map((p) => p.name)).toEqual(['things_default', ...names]);
    const [options] = await db.query(`SELECT reloptions FROM pg_class WHERE relname = $1`, [names[1]]);
    expect(options.reloptions).toEqual(['fillfactor=70']);
  });

  it('drops partitions whose whole range ended by the cutoff, keeping the rows asked for in the default partition', async () => {
    const start = spanStart(Date.UTC(2026, 0, 10));
    const names = [0, 1, 2, 3].map((k) => partitionName(T, start + k * SPAN));
    const ids = [0, 1, 2, 3].map((k) => newWebhookId.delivery(start + k * SPAN + 5000));
    for (const [k, id] of ids.entries()) await db.query(`INSERT INTO things (thing_id, n, keep) VALUES ($1, 1, $2), ($1, 2, false)`, [id, k === 0]);

    // Mid-span cutoff: the span it falls in stays whole.
    const result = await dropPartitionsBefore(db, T, start + 2 * SPAN + SPAN / 2, { where: 'p.keep' });
    expect(result).toEqual({ dropped: names.slice(0, 2), rowsKept: 1 });
    expect((await listPartitions(db, T)).map((p) => p.name)).toEqual(['things_default', ...names.slice(2)]);
    const rows = await db.query(`SELECT thing_id, n, tableoid::regclass::text AS part FROM things ORDER BY thing_id, n`);
    expect(rows).toEqual([
      { thing_id: ids[0], n: 1, part: 'things_default' },
      { thing_id: ids[2], n: 1, part: names[2] },
      { thing_id: ids[2], n: 2, part: names[2] },
      { thing_id: ids[3], n: 1, part: names[3] },
      { thing_id: ids[3], n: 2, part: names[3] },
    ]);
    expect(await dropPartitionsBefore(db, T, start + 2 * SPAN + SPAN / 2, { where: 'p.keep' })).toEqual({ dropped: [], rowsKept: 0 });
  });
});
