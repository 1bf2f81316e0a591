import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { readTimestamptz, writeIsoTimestamp } from '../src/platform/timestamptz.js';

// pg's own reader, for the forms the fast path hands over: the two must never disagree.
const readWithPg = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => unknown;

let client: pg.Client;
beforeAll(async () => {
  client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  // Text out, so this test sees exactly what PostgreSQL writes.
  client.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (text: string) => text);
  await client.connect();
});
afterAll(() => client?.end());

/** What PostgreSQL writes for each instant (microseconds since 1970) in `zone`, and the instant to the millisecond. */
async function writtenBy(zone: string, micros: bigint[]): Promise<{ text: string; ms: number }[]> {
  await client.query(`SET TimeZone = '${zone}'`);
  const { rows } = await client.query(
    `SELECT t AS text, floor(extract(epoch FROM t) * 1000)::float8 AS ms
       FROM unnest($1::bigint[]) AS us, LATERAL (SELECT 'epoch'::timestamptz + us * interval '1 microsecond' AS t) x`,
    [micros.map(String)],
  );
  return rows;
}

// Offsets in whole hours, half and three-quarter hours, negative, and local mean time with seconds (Amsterdam before 1835).
const ZONES = ['UTC', 'Asia/Ho_Chi_Minh', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham', 'America/Los_Angeles', 'Europe/Amsterdam'];
const YEAR_1 = -62_135_596_800_000_000n;
const YEAR_9999_END = 253_402_300_799_999_999n;

describe('reading timestamptz', () => {
  it.each(ZONES)('reads every instant from year 1 to 9999 as PostgreSQL wrote it, to the millisecond (TimeZone %s)', async (zone) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.bigInt({ min: YEAR_1, max: YEAR_9999_END }), { minLength: 1, maxLength: 200 }), async (micros) => {
        for (const { text, ms } of await writtenBy(zone, micros)) {
          const read = readTimestamptz(text);
          expect(read.getTime(), text).toBe(ms);
          expect(read, text).toEqual(readWithPg(text));
        }
      }),
      { numRuns: 20 },
    );
  });

  it('hands the forms it does not read itself to pg: BC, infinity, offsets with seconds, years before 1000', async () => {
    await client.query(`SET TimeZone = 'Europe/Amsterdam'`);
    const { rows } = await client.query(
      `SELECT unnest(ARRAY['0044-03-15 12:00:00 BC', 'infinity', '-infinity', '1800-06-01 12:00:00', '0999-12-31 23:59:59.999', '0001-01-01 00:00:00']::timestamptz[]) AS text`,
    );
    // Local mean time before the zone had a standard offset: seconds in the offset.
    expect(rows.map((r) => r.text)).toContainEqual(expect.stringMatching(/^1800-06-01 12:00:00\+00:\d\d:\d\d$/));
    for (const { text } of rows) expect(readTimestamptz(text), text).toEqual(readWithPg(text));
  });
});

describe('writing timestamps', () => {
  it('writes every instant exactly as toISOString does, in and out of 1970..9999', () => {
    const YEAR_10000_MS = 253_402_300_800_000;
    for (const range of [fc.integer({ min: 0, max: YEAR_10000_MS - 1 }), fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 })])
      fc.assert(
        fc.property(range, (ms) => {
          expect(writeIsoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
        }),
        { numRuns: 20_000 },
      );
    for (const ms of [0, 1, 999, 86_399_999, 86_400_000, 951_782_400_000, 4_107_542_400_000, YEAR_10000_MS - 1, YEAR_10000_MS, -1])
      expect(writeIsoTimestamp(new Date(ms)), String(ms)).toBe(new Date(ms).toISOString());
  });
});
