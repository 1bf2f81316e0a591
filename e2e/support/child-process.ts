import { spawn, type ChildProcess } from 'node:child_process';
import { vi } from 'vitest';

export interface RunningProcess {
  child: ChildProcess;
  /** Everything it printed so far: shown when it fails to start, and handy in failing tests. */
  output(): string;
  /** SIGTERM, and SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: Record<string, string | undefined>;
  /** Resolves true once the process is ready to be used. */
  isReady: (output: string) => boolean | Promise<boolean>;
  timeoutMs?: number;
}

/** Runs `node <script>` as its own process, as a user would start it, and waits until it is ready. */
export async function startNodeProcess({ name, script, env, isReady, timeoutMs = 60_000 }: StartOptions): Promise<RunningProcess> {
  const child = spawn(process.execPath, [script], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running: RunningProcess = {
    child,
    output: () => output,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killLater = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killLater);
    },
  };

  // Ready, or exited (then the check below fails at once rather than at the deadline).
  try {
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) return;
        if (!(await isReady(output))) throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${output}`);
      },
      { timeout: timeoutMs, interval: 100 },
    );
  } catch (err) {
    await running.stop(1000);
    throw err;
  }
  if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} before it was ready:\n${output}`);
  return running;
}

/** The environment a child should start from: this one, minus what would point it at another setup. */
export function baseEnv(): Record<string, string | undefined> {
  const { DATABASE_URL: _database, NODE_ENV: _mode, NODE_EXTRA_CA_CERTS: _ca, ...rest } = process.env;
  return rest;
}
