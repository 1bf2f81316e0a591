import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';

/** `pnpm bench` on a tiny size, so the benchmarks keep working between full runs (which are for people). */
describe('benchmarks', () => {
  it('run end to end on a tiny size and report every figure', () => {
    const result = spawnSync(process.execPath, [path.join(REPO_ROOT, 'server/dist/bench/run.js'), '--size', 'tiny'], {
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, DATABASE_URL: '', BENCH_EVENTS: '100', LOG_LEVEL: 'error' },
    });
    expect(result.status, result.stderr).toBe(0);
    const plaza = /\*\*Plaza engine\*\*: first commit to last verified receipt \| \*\*([\d,]+)\*\*/.exec(result.stdout);
    expect(plaza, result.stdout).not.toBeNull();
    expect(Number(plaza![1].replace(/,/g, ''))).toBeGreaterThan(0);
    for (const baseline of ['(a) bare loop', '(b) one Agenda job per delivery', '(c) pg-boss']) {
      expect(result.stdout, baseline).toMatch(new RegExp(`\\| ${baseline.replace(/[()]/g, '\\$&')}[^|]*\\| [\\d,]+ \\| [\\d.]+x \\|`));
    }
    expect(result.stdout).toMatch(/PostgreSQL write commits per delivery \(business commit included\): \d+\.\d\d/);
  }, 270_000);
});
