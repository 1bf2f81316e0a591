import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';

// The real `plaza` binary, as `pnpm plaza` runs it; built by `pnpm --filter @plaza/cli build`.
const CLI = resolve(import.meta.dirname, '../../packages/cli/dist/main.js');
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value previousValue previousValidUntil } }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let configHome: string;

/** Runs the CLI to its end with a sign-in token (rotating a secret is for people, not API tokens). */
function plaza_(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, PLAZA_URL: plaza.url, PLAZA_TOKEN: developer.token, NO_COLOR: '1' }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm --filter @plaza/cli build first`);
  configHome = await mkdtemp(join(tmpdir(), 'plaza-cli-secret-'));
  plaza = await startTestPlaza();
  developer = await plaza.signIn('cli-rotator@studio.test');
});

describe('plaza secret', () => {
  it('rotates with an overlap, refuses a second rotation during it saying until when and what to do instead, finishes, and switches at once with --overlap 0', async () => {
    const app = await submitApp(developer);
    const rotated = await plaza_(['secret', 'rotate', '--app', app.id, '--json']);
    expect(rotated, rotated.stderr).toMatchObject({ code: 0 });
    const first = JSON.parse(rotated.stdout);
    expect(first.previousValidUntil).toEqual(expect.any(String));

    const again = await plaza_(['secret', 'rotate', '--app', app.id, '--overlap', '1']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `A rotation is already in progress until ${first.previousValidUntil}; finish it first (plaza secret finish --app <id>) or rotate with --overlap 0 if the secret leaked`,
    );
    const revealed = (await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret;
    expect(revealed).toMatchObject({ value: first.value, previousValidUntil: first.previousValidUntil });

    const finished = await plaza_(['secret', 'finish', '--app', app.id]);
    expect(finished, finished.stderr).toMatchObject({ code: 0 });
    expect(finished.stdout).toContain(`Rotation finished: only the current secret of ${app.id} signs`);

    const overlap = await plaza_(['secret', 'rotate', '--app', app.id, '--overlap', '2']);
    expect(overlap, overlap.stderr).toMatchObject({ code: 0 });
    expect(overlap.stdout).toMatch(/The old secret keeps signing until \S+Z/);
    const leaked = await plaza_(['secret', 'rotate', '--app', app.id, '--overlap', '0']);
    expect(leaked, leaked.stderr).toMatchObject({ code: 0 });
    expect(leaked.stdout).toContain('Only the new secret signs from now on: every older secret has stopped');
    const secret = /New client secret of \S+: (whsec_\S+)/.exec(leaked.stdout)?.[1];
    expect((await developer.ok<{ revealClientSecret: any }>(REVEAL, { appId: app.id })).revealClientSecret).toEqual({
      value: secret,
      previousValue: null,
      previousValidUntil: null,
    });
  });

  it.each(['-1', '169', '2h', ''])('refuses --overlap %j before asking Plaza', async (overlap) => {
    const app = await submitApp(developer);
    const run = await plaza_(['secret', 'rotate', '--app', app.id, '--overlap', overlap]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`--overlap must be a whole number of hours from 0 (switch now, if the secret leaked) to 168, not "${overlap}"`);
  });
});
