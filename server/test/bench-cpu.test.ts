import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';

// The benchmarks are built beside the server (dist/bench) and import it as if they lived in src, so they
// are loaded built, as the benchmark smoke test runs them.
const { countCpu } = (await import(path.join(REPO_ROOT, 'server/dist/bench/server-process.js'))) as typeof import('../bench/server-process.js');

/** Node code that keeps one core busy until it has used `ms` of CPU, then (optionally) writes `done`. */
const burn = (ms: number, done?: string) =>
  `const until = ${ms} * 1000; while (process.cpuUsage().user + process.cpuUsage().system < until) {} ${done ? `require('node:fs').writeFileSync(${JSON.stringify(done)}, '')` : ''}`;

const dir = mkdtempSync(path.join(tmpdir(), 'bench-cpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The benchmarks' CPU per unit of work counts the processes doing the work (this one and those below
 * it), not the whole shared machine: other people's tests on the same cores must not land in Plaza's figure.
 */
describe('benchmark CPU accounting', () => {
  it("counts a child process's CPU, also after it has exited", async () => {
    const cpu = countCpu();
    const child = spawn(process.execPath, ['-e', burn(400)], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    const used = cpu.per(1);
    expect(used).not.toBeNull();
    // The child used 400 ms and is gone: its time is in this process's reaped children's time.
    expect(used!.work).toBeGreaterThanOrEqual(350);
    expect(used!.machine).toBeGreaterThanOrEqual(350);
  });

  it('leaves out a busy process that is not below this one, which the machine figure includes', async () => {
    const done = path.join(dir, 'orphan-done');
    const cpu = countCpu();
    // The shell starts the burner in the background and exits at once, so the burner is re-parented
    // away from this process: like a colleague's test on the same machine.
    const shell = spawn('sh', ['-c', `"${process.execPath}" -e "${burn(600, done).replace(/"/g, '\\"')}" > /dev/null 2>&1 &`], { stdio: 'ignore' });
    await new Promise((resolve) => shell.once('exit', resolve));
    await expect.poll(() => existsSync(done), { timeout: 60_000, interval: 100, message: 'the background burner finished' }).toBe(true);
    const used = cpu.per(1)!;
    expect(used.machine).toBeGreaterThanOrEqual(550);
    // This process only polled for a file meanwhile: far below the burner's 600 ms.
    expect(used.work).toBeLessThan(300);
  }, 90_000);
});
