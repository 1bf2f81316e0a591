import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { REPO_ROOT } from '../../src/config.js';

const running: ScriptProcess[] = [];
// Whatever a test leaves running is killed after its file, so no receiver outlives the run.
afterAll(async () => {
  await Promise.all(running.splice(0).map((script) => script.stop()));
});

export interface ScriptProcess {
  child: ChildProcess;
  /** stdout and stderr together, as they arrived. */
  output(): string;
  /** Resolves with the output once it matches `pattern`; rejects when the process exits first or `timeoutMs` passes. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<void>;
}

/** A program run as its own process (a receiver, an example), its output kept for the test to wait on. */
export function startScript(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): ScriptProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());
  child.stdout!.on('data', (chunk) => ((output += chunk), changed()));
  child.stderr!.on('data', (chunk) => ((output += chunk), changed()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => (changed(), resolve())));
  const script: ScriptProcess = {
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) done(() => resolve(match));
          else if (child.exitCode !== null || child.signalCode !== null)
            done(() => reject(new Error(`${command} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`${command} did not print ${pattern} within ${timeoutMs} ms:\n${output}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  running.push(script);
  return script;
}

/**
 * A built entry point, `node server/dist/<entry>`, run to its exit as an operator runs it (`pnpm start`,
 * `pnpm migrate:contract`): its exit code, stdout and stderr. Killed after `killAfterMs`, so a hang fails the
 * test with what the process printed rather than the test's timeout.
 */
export async function runBuiltToExit(entry: string, env: NodeJS.ProcessEnv, killAfterMs = 90_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = path.join(REPO_ROOT, 'server/dist', entry);
  if (!existsSync(script)) throw new Error(`${script} is missing: run pnpm build first`);
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const code = await new Promise<number | null>((resolve) => child.once('close', (exitCode) => resolve(exitCode)));
  clearTimeout(killer);
  return { code, stdout, stderr };
}
