import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { vi } from 'vitest';
import type { GraphQLTestClient } from './graphql-client.js';

// The real `plaza` binary, as `pnpm plaza` runs it; built by `pnpm build` (or `pnpm --filter @plaza/cli build`).
// PLAZA_CLI names another build of it, to see a test fail on the CLI from before a fix.
export const CLI = process.env.PLAZA_CLI ?? resolve(import.meta.dirname, '../../../packages/cli/dist/main.js');
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { id token } }';
export const CLI_SCOPES = ['deliveries:read', 'deliveries:write', 'apps:read'];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `plaza` to its end against `plazaUrl` with only the environment given (plus PATH), as a user's shell would. */
export type RunCli = ((args: string[], env?: Record<string, string | undefined>) => Promise<CliRun>) & {
  /** The API token it uses (tok_ id and value). */
  token: { id: string; token: string };
  /** A long-running `plaza` (listen, tail) whose output is collected as it comes. */
  start(args: string[], env?: Record<string, string | undefined>): StartedCli;
};

export interface StartedCli {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
  waitFor(stream: 'stdout' | 'stderr', text: string, timeoutMs?: number): Promise<void>;
}

/**
 * A `plaza` for `client`'s account: an API token with every scope it needs (or `token`, a sign-in token
 * for instance) and a config home of its own, so nothing of the machine's own CLI set-up is read.
 */
export async function cliFor(plazaUrl: string, client: GraphQLTestClient, options: { scopes?: string[] } = {}): Promise<RunCli> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @plaza/cli build first`);
  const configHome = await mkdtemp(join(tmpdir(), 'plaza-cli-'));
  const { createApiToken } = await client.ok<{ createApiToken: { id: string; token: string } }>(CREATE_TOKEN, {
    input: { name: 'plaza cli', scopes: options.scopes ?? CLI_SCOPES },
  });
  const environment = (env: Record<string, string | undefined>) => ({
    PATH: process.env.PATH,
    HOME: configHome,
    XDG_CONFIG_HOME: configHome,
    PLAZA_URL: plazaUrl,
    PLAZA_TOKEN: createApiToken.token,
    ...env,
  });
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    new Promise<CliRun>((done) => {
      const child = execFile(process.execPath, [CLI, ...args], { env: environment(env), timeout: 60_000 }, (error, stdout, stderr) =>
        done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
      child.stdin?.end('');
    });
  const start = (args: string[], env: Record<string, string | undefined> = {}): StartedCli => {
    const child = spawn(process.execPath, [CLI, ...args], { env: environment(env) });
    const out = { stdout: '', stderr: '' };
    child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const waitFor = (stream: 'stdout' | 'stderr', text: string, timeoutMs = 20_000) =>
      vi.waitFor(
        () => {
          if (!out[stream].includes(text)) throw new Error(`"${text}" did not appear on ${stream} within ${timeoutMs} ms; stdout: ${out.stdout}; stderr: ${out.stderr}`);
        },
        { timeout: timeoutMs, interval: 50 },
      );
    return { child, out, exited, waitFor };
  };
  return Object.assign(run, { token: createApiToken, start });
}

/** Lines of `--json` output, each parsed. */
export const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
