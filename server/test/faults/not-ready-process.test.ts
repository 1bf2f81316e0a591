import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { TEST_ENCRYPTION_KEY } from '../helpers/plaza.js';
import { startPlazaProcess } from '../helpers/process.js';

/** Processes whose environment holds `marker`: the ones this test started, whatever became of their handles. */
const processesWith = (marker: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    });

describe('a Plaza process that does not become ready in time', () => {
  it('is killed before the start fails, not left running behind the failed test', async () => {
    const marker = `plaza-not-ready-${randomBytes(6).toString('hex')}`;
    const env = { DATABASE_URL: await createTestDatabase(), SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, WEB_DIST_DIR: '/nonexistent', PLAZA_TEST_MARKER: marker };
    // A worker that starts (it logs so) but whose readiness line never comes: running, yet never ready.
    const start = startPlazaProcess(env, 'worker.js', /a line no worker logs/, { readyWithinMs: 45_000 });
    await expect(start).rejects.toThrow(/did not become ready within 45 s:[\s\S]*delivery worker started/);
    expect(processesWith(marker)).toEqual([]);
  }, 90_000);
});
