import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, vi } from 'vitest';
import { REPO_ROOT } from '../../src/config.js';

const running: PlazaProcess[] = [];
// Whatever a test leaves running is killed after its file, so no process outlives the run.
afterAll(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
});

export interface PlazaProcess {
  child: ChildProcess;
  url: string;
  /** stdout and stderr together, as they arrived. */
  output: () => string;
  /** stdout alone: the process's JSON log lines. */
  stdout: () => string;
  /** Sends `signal` and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** The checkout whose build runs (another release's, for a rolling upgrade); this one by default. */
  root?: string;
  /** How long it may take to become ready (an API migrating a large history takes longer); 60 s by default. */
  readyWithinMs?: number;
}

/**
 * Runs the built server (`node server/dist/<entry>`) as its own process, as `pnpm start` or
 * `pnpm worker` would; ready when /readyz answers (API) or when a log line matches `readyLine` (worker).
 * One not ready in time is killed before the error is thrown: left running, it would go on using the
 * database and the machine behind the failed test (and outlive the run, as it is in no list to stop).
 */
export async function startPlazaProcess(
  env: Record<string, string | undefined>,
  entry = 'main.js',
  readyLine?: RegExp,
  { root = REPO_ROOT, readyWithinMs = 60_000 }: StartOptions = {},
): Promise<PlazaProcess> {
  const script = path.join(root, 'server/dist', entry);
  if (!existsSync(script)) throw new Error(`${script} is missing: run pnpm build first`);
  const cleanEnv = { ...process.env };
  delete cleanEnv.DATABASE_URL;
  delete cleanEnv.NODE_ENV;
  const child = spawn(process.execPath, [script], { env: { ...cleanEnv, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${env.PORT ?? 0}`;
  // Ready, or exited (then the check below fails at once rather than after the whole minute).
  const ready = vi.waitFor(
    async () => {
      if (child.exitCode !== null) return;
      const ready = readyLine
        ? readyLine.test(output)
        : await fetch(`${url}/readyz`).then(
            (r) => r.ok,
            () => false,
          );
      if (!ready) throw new Error(`Plaza did not become ready within ${readyWithinMs / 1000} s:\n${output}`);
    },
    { timeout: readyWithinMs, interval: 100 },
  );
  try {
    await ready;
  } catch (error) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  }
  if (child.exitCode !== null) throw new Error(`Plaza exited with ${child.exitCode}:\n${output}`);
  const handle: PlazaProcess = {
    child,
    url,
    output: () => output,
    stdout: () => stdout,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  running.push(handle);
  return handle;
}
