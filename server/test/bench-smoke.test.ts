import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';

/** `pnpm bench` on a tiny size, so the benchmarks keep working between full runs (which are for people). */
describe('benchmarks', () => {
  it('run end to end on a tiny size and report every figure', () => {
    const result = spawnSync(process.execPath, [path.join(REPO_ROOT, 'server/dist/bench/run.js'), '--size', 'tiny'], {
      encoding: 'utf8',
      timeout: 470_000,
      env: { ...process.env, DATABASE_URL: '', BENCH_EVENTS: '100', LOG_LEVEL: 'error' },
    });
    expect(result.status, result.stderr).toBe(0);
    const report = result.stdout;
    const plaza = /\*\*Plaza engine\*\*, events 100 to a transaction: first commit to last verified receipt \| \*\*([\d,]+)\*\*/.exec(report);
    expect(plaza, report).not.toBeNull();
    expect(Number(plaza?.[1]?.replace(/,/g, ''))).toBeGreaterThan(0);
    for (const baseline of ['(a) bare loop', '(b) one Agenda job per delivery', '(c) pg-boss', 'Plaza engine, one transaction per event']) {
      expect(report, baseline).toMatch(new RegExp(`\\| ${baseline.replace(/[()]/g, '\\$&')}[^|]*\\| [\\d,]+ \\| [\\d.]+x \\|`));
    }
    expect(report).toMatch(/PostgreSQL write commits per delivery \(business commits included\): \d+\.\d\d with events 100 to a transaction/);
    // Every section reports its figures and a verdict for each of its targets.
    for (const section of [
      '## 2. Latency',
      '## 3. Retry fidelity',
      '## 4. Delivery log queries',
      '## 5. API throughput',
      '## 6. Subscriptions',
      '## 7. Footprint',
      '## 8. Charts',
      '## 10. Soak',
    ]) {
      expect(report, section).toContain(section);
    }
    expect(report).toMatch(/\| 50\/s \| 2 s \| 100 \| \d+ ms \| \d+ ms \| \d+ ms \| <= 50 ms: (met|NOT met) \|/);
    expect(report).toMatch(/Lost: 0 \(target 0: met\)\. Extra attempts: 0 \(target 0: met\)/);
    expect(report).toMatch(/\| 20,000 \| purchase \| [\d.]+ ms \| \*\*[\d.]+ ms\*\* \|/);
    // The tables as the engine writes them, each of the two bursts' 200 deliveries' three attempts sent and recorded once.
    expect(report).toMatch(/Bytes on disk per delivery: [\d,]+ after the first burst, \*\*-?[\d,]+ added per delivery by the second\*\*/);
    expect(report).toMatch(/\| each attempt sent once: 3 requests and 3 attempts recorded a delivery \| met \(1,200 requests, 1,200 attempts\) \|/);
    expect(report).toMatch(/\| `storeApps\(first: 20\)` \| [\d,]+ \| \*\*[\d,]+\*\* \|[^\n]*\| 0 \| 0 \| 0 \|/);
    expect(report).toMatch(/Messages received \/ expected \(6 updates x 100\) \| 600 \/ 600/);
    expect(report).toMatch(/\| LAST_7_DAYS \| after: from the hourly rollup \| \d+ \| [\d.]+ ms \| \*\*[\d.]+ ms\*\* \| [\d.]+ ms \|/);
    expect(report).toMatch(/\*\*Start to \/readyz 200, restart on existing data \(median of 2\)\*\* \| \*\*[\d.]+ s\*\*/);
    // The soak's losses are counted, not timed: on any machine, none.
    expect(report).toMatch(
      /\| \(4\) Nothing lost: [\d,]+ events committed, [\d,]+ purchases answered OK \| \| missing 0, FAILED 0, unsettled 0, SUCCEEDED but never received 0; subscriber silent in 0 samples, 0 errors \([\d,]+ updates for [\d,]+ of its app's deliveries settled\) \| 0: met \|/,
    );
  }, 490_000);

  it('start nothing on an option they do not know, --help among them, and say what they take', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(REPO_ROOT, 'server/dist/bench/run.js'), ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, LOG_LEVEL: 'error' } });
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: pnpm bench [--size tiny|full] [--only N[,N...]]');
    for (const [args, why] of [
      [['--sizes', 'tiny'], 'unknown option --sizes'],
      [['--size', 'small'], '--size takes tiny or full, not small'],
      [['--only', '4,x'], '--only takes section numbers separated by commas, not 4,x'],
      [['--only', '12'], 'no section 12: the sections are 1, 2, 3, 4, 5, 6, 7, 8, 9, 10'],
    ] as const) {
      const refused = run(...args);
      expect(refused.status, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(why);
      expect(refused.stdout, 'no benchmark ran').toBe('');
    }
  }, 120_000);
});
