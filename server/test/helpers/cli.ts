import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GraphQLTestClient } from './graphql-client.js';

// The real `plaza` binary, as `pnpm plaza` runs it; built by `pnpm build` (or `pnpm --filter @plaza/cli build`).
export const CLI = resolve(import.meta.dirname, '../../../packages/cli/dist/main.js');
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `plaza` to its end against `plazaUrl` with only the environment given (plus PATH), as a user's shell would. */
export type RunCli = (args: string[], env?: Record<string, string | undefined>) => Promise<CliRun>;

/**
 * A `plaza` for `client`'s account: an API token with every scope it needs and a config home of its own,
 * so nothing of the machine's own CLI set-up is read.
 */
export async function cliFor(plazaUrl: string, client: GraphQLTestClient): Promise<RunCli> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @plaza/cli build first`);
  const configHome = await mkdtemp(join(tmpdir(), 'plaza-cli-'));
  const { createApiToken } = await client.ok<{ createApiToken: { token: string } }>(CREATE_TOKEN, {
    input: { name: 'plaza cli', scopes: ['deliveries:read', 'deliveries:write', 'apps:read'] },
  });
  return (args, env = {}) =>
    new Promise((done) => {
      const child = execFile(
        process.execPath,
        [CLI, ...args],
        { env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, PLAZA_URL: plazaUrl, PLAZA_TOKEN: createApiToken.token, ...env }, timeout: 60_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
      child.stdin?.end('');
    });
}
