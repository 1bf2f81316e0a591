import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';

// Loaded built, as soak-verdicts.test.ts loads the soak's verdicts (the benchmarks import the server as if they lived in src).
const { databaseWindow, databaseWindowsTable } = (await import(path.join(REPO_ROOT, 'server/dist/bench/soak-database.js'))) as typeof import('../bench/soak-database.js');
type DatabaseSample = import('../bench/soak-database.js').DatabaseSample;

/** A reading at `atSeconds` after `k` intervals of the same work, except where `change` says otherwise. */
function sample(k: number, change: { claimMs?: number; claimMaxMs?: number; checkpoint?: boolean; dead?: number } = {}): DatabaseSample {
  const table = {
    heapBytes: k * 2 ** 20,
    indexBytes: k * 2 ** 19,
    liveRows: k * 1000,
    deadRows: change.dead ?? 10,
    updates: k * 100,
    hotUpdates: k * 50,
    autovacuums: k >> 2,
    autoanalyzes: 0,
  };
  return {
    atSeconds: k * 30,
    database: {
      statements: {
        claim: { calls: k * 300, totalMs: k * 300 + (change.claimMs ?? 0), maxMs: change.claimMaxMs ?? 5 },
        write: { calls: k * 100, totalMs: k * 500, maxMs: 20 },
      },
      checkpoints: { timed: change.checkpoint ? 1 : 0, requested: 0, buffersWritten: change.checkpoint ? 3000 : 0, writeMs: 0, syncMs: 0 },
      bgwriterBuffers: 0,
      backendWrites: k * 600,
      walBytes: k * 30 * 2 ** 20,
      tables: { webhook_deliveries: table },
    },
  };
}

describe("the soak's database readings, first window against last", () => {
  // Ten samples 30 s apart; the first window is samples 2-4 (from sample 1's reading), the last 8-10 (from sample 7's).
  const samples = Array.from({ length: 10 }, (_, i) => i + 1).map((k) =>
    // The last window: the claim takes 2 ms more per call over its 900 calls, once 80 ms, and a checkpoint ran in it.
    k >= 8 ? sample(k, { claimMs: (k - 7) * 600, claimMaxMs: k === 9 ? 80 : 5, checkpoint: true, dead: 4000 }) : sample(k),
  );
  const first = databaseWindow(samples, samples.slice(1, 4))!;
  const last = databaseWindow(samples, samples.slice(7, 10))!;

  it("takes each window's figures as differences from the reading before it", () => {
    expect(first.seconds).toBe(90);
    expect(first.statements!.claim).toEqual({ callsPerSecond: 10, meanMs: 1, maxMs: 5 });
    expect(first.statements!.write.meanMs).toBe(5);
    expect(first.checkpoints).toBe(0);
    expect(first.backendWritesPerSecond).toBe(20);
    expect(first.walMiBPerSecond).toBe(1);
    expect(first.tables.webhook_deliveries).toMatchObject({ heapMiB: 4, heapGrowthMiB: 3, indexMiB: 2, indexGrowthMiB: 1.5, deadRows: 10, hotShare: 0.5 });
  });

  it('shows what changed in the last: a slower claim, its longest call, a checkpoint, dead rows', () => {
    expect(last.statements!.claim.meanMs).toBeCloseTo(1 + 1800 / 900, 6);
    expect(last.statements!.claim.maxMs).toBe(80);
    // The checkpoint counted once (it happened before sample 8, after sample 7).
    expect(last.checkpoints).toBe(1);
    expect(last.checkpointBuffersPerSecond).toBeCloseTo(3000 / 90, 6);
    expect(last.tables.webhook_deliveries!.deadRows).toBe(4000);
    const table = databaseWindowsTable(samples, { first: samples.slice(1, 4), last: samples.slice(7, 10) } as never);
    expect(table).toContain('| Claim: calls/s, mean, longest | 10.0/s, 1.00 ms, 5.0 ms | 10.0/s, 3.00 ms, 80.0 ms |');
    expect(table).toContain('| webhook_deliveries: dead rows at the end, HOT share of updates, autovacuum / autoanalyze runs | 10, 50%, 1 / 0 | 4,000, 50%, 1 / 0 |');
  });

  it('says so when pg_stat_statements could not be read', () => {
    const without = samples.map((s) => ({ ...s, database: { ...s.database, statements: null } }));
    expect(databaseWindow(without, without.slice(1, 4))!.statements).toBeNull();
    expect(databaseWindowsTable(without, { first: without.slice(1, 4), last: without.slice(7, 10) } as never)).toContain('n/a (no pg_stat_statements)');
  });
});
