import { execFile } from 'node:child_process';
import { symlink, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/config.js';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { REVIEWER_EMAIL, startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { startScript, type ScriptProcess } from './helpers/script-process.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

// What a developer outside this repository gets: the tarballs `pnpm pack` makes of the built packages
// (`pnpm build` first, as `pnpm test` does), installed with plain npm into an empty directory under the
// system's temp directory, where no workspace package can be found.
const SDK_DIR = join(REPO_ROOT, 'packages/app-sdk');
const CLI_DIR = join(REPO_ROOT, 'packages/cli');
const TSC = join(REPO_ROOT, 'node_modules/.bin/tsc');
const REVEAL = 'mutation($appId: ID!) { revealClientSecret(appId: $appId) { value } }';
const FORWARD = 'query($id: ID!) { webhookForwardRequest(deliveryId: $id) { body headers { name value } } }';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}, timeout = 240_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

async function mustRun(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const result = await run(command, args, cwd, env);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The receiver the SDK's README starts with, exactly as printed there. */
async function readmeReceiver(): Promise<string> {
  const readme = await readFile(join(SDK_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A receiver in 30 lines'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('packages/app-sdk/README.md has no ```js receiver under "## A receiver in 30 lines"');
  return code;
}

/** The same receiver in CommonJS, with the one line the README says changes. */
const asCommonJs = (receiver: string) =>
  receiver
    .replace("import { createServer } from 'node:http';", "const { createServer } = require('node:http');")
    .replace("import { createWebhookHandler } from '@plaza/app-sdk/server';", "const { createWebhookHandler } = require('@plaza/app-sdk/server');");

/** A server that answers every request with `answer` and remembers the User-Agent each one carried. */
async function recordingServer(answer: string): Promise<{ server: Server; url: string; headers: IncomingHttpHeaders[] }> {
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    headers.push(req.headers);
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, headers };
}

/** A limit, not an expectation: npx, tsc and node start in about a second each, but 15 s under the shared machine's load. */
const SLOW_START = { timeout: 180_000 };

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let reviewer: GraphQLTestClient;
let installDir: string;
let sdkVersion: string;
let cliVersion: string;
const packed: Record<string, { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; files?: string[]; license?: string }> = {};
const tarballBytes: Record<string, number> = {};
const tarballFiles: Record<string, string[]> = {};
let installSeconds = 0;

beforeAll(async () => {
  plaza = await startTestPlaza();
  [developer, reviewer] = await Promise.all([plaza.signIn('stranger@outside.test'), plaza.signIn(REVIEWER_EMAIL)]);

  installDir = await mkdtemp(join(tmpdir(), 'plaza-packages-'));
  const tarballs = join(installDir, 'tarballs');
  await mkdir(tarballs);
  for (const dir of [SDK_DIR, CLI_DIR]) await mustRun('pnpm', ['pack', '--pack-destination', tarballs], dir);
  const files = (await readdir(tarballs)).filter((name) => name.endsWith('.tgz'));
  for (const file of files) {
    const manifest = await mustRun('tar', ['-xzOf', join(tarballs, file), 'package/package.json'], installDir);
    const name = file.startsWith('plaza-cli') ? 'cli' : 'sdk';
    packed[name] = JSON.parse(manifest);
    tarballFiles[name] = (await mustRun('tar', ['-tzf', join(tarballs, file)], installDir)).trim().split('\n');
    tarballBytes[file] = Number((await mustRun('stat', ['-c', '%s', join(tarballs, file)], installDir)).trim());
  }
  sdkVersion = JSON.parse(await readFile(join(SDK_DIR, 'package.json'), 'utf8')).version;
  cliVersion = JSON.parse(await readFile(join(CLI_DIR, 'package.json'), 'utf8')).version;

  const project = join(installDir, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-plaza-app', version: '1.0.0', private: true }));
  const started = performance.now();
  // Plain npm, from the tarballs; their registry dependencies come from the npm registry (or npm's cache).
  await mustRun('npm', ['install', '--no-audit', '--no-fund', '--loglevel', 'error', ...files.map((file) => join(tarballs, file))], project, {
    npm_config_workspaces: 'false',
  });
  installSeconds = (performance.now() - started) / 1000;
  installDir = project;
}, 400_000);

afterAll(async () => {
  if (installDir) await rm(join(installDir, '..'), { recursive: true, force: true });
});

describe('the packed packages', SLOW_START, () => {
  it('name no workspace package, ship a licence, and hold no source maps or tests', () => {
    console.log(`tarballs: ${JSON.stringify(tarballBytes)}; npm install took ${installSeconds.toFixed(1)} s`);
    for (const name of ['sdk', 'cli']) {
      const manifest = packed[name]!;
      expect(manifest.license).toBe('MIT');
      expect(tarballFiles[name]).toEqual(expect.arrayContaining(['package/LICENSE', 'package/README.md', 'package/package.json']));
      expect(tarballFiles[name]!.filter((path) => /\.map$|\/(src|test)\//.test(path))).toEqual([]);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        expect(name).not.toMatch(/^@plaza\//);
        expect(range).not.toMatch(/^workspace:/);
      }
    }
    expect(tarballFiles.sdk).toEqual(expect.arrayContaining(['package/dist/server/index.cjs', 'package/dist/server/index.d.cts', 'package/dist/shared/index.js']));
    expect(tarballFiles.cli).toContain('package/dist/main.js');
  });

  it('install with plain npm outside the repository: npx plaza --help and --version work there', async () => {
    const help = await run('npx', ['--no-install', 'plaza', '--help'], installDir);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plaza \[options\] \[command\]/);
    expect(help.stdout).toContain('listen');
    const version = await run('npx', ['--no-install', 'plaza', '--version'], installDir);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(cliVersion);
  });

  it("the installed CLI's requests say User-Agent: plaza-cli/<version>", async () => {
    const recorder = await recordingServer(JSON.stringify({ data: { me: { id: 'acc_1', email: 'stranger@outside.test', roles: [] } } }));
    try {
      const whoami = await run('npx', ['--no-install', 'plaza', 'whoami', '--json'], installDir, { PLAZA_URL: recorder.url, PLAZA_TOKEN: 'any', XDG_CONFIG_HOME: installDir });
      expect(whoami.code, whoami.stderr).toBe(0);
      expect(recorder.headers.map((h) => h['user-agent'])).toContain(`plaza-cli/${cliVersion}`);
    } finally {
      recorder.server.close();
    }
  });

  it("the installed SDK's key fetch says User-Agent: plaza-app-sdk/<version>", async () => {
    const recorder = await recordingServer(JSON.stringify({ keys: [] }));
    try {
      const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k1' })).toString('base64url');
      const token = `${header}.${Buffer.from('{}').toString('base64url')}.c2ln`;
      await writeFile(
        join(installDir, 'jwks-fetch.mjs'),
        `import { createSessionVerifier } from '@plaza/app-sdk/server';
const verifier = createSessionVerifier({ platformOrigin: ${JSON.stringify(recorder.url)}, appId: 'app_x' });
await verifier.verify(${JSON.stringify(token)}).catch((error) => console.log(error.code));`,
      );
      const fetched = await run(process.execPath, ['jwks-fetch.mjs'], installDir);
      expect(fetched.stdout.trim(), fetched.stderr).toBe('UNKNOWN_KEY');
      expect(recorder.headers.map((h) => h['user-agent'])).toEqual([`plaza-app-sdk/${sdkVersion}`]);
    } finally {
      recorder.server.close();
    }
  });

  it('ship types that a TypeScript project outside the workspace compiles against, ES modules and CommonJS', async () => {
    // @types/node for the node:http types the SDK's declarations name, as any Node project has it.
    await mkdir(join(installDir, 'node_modules/@types'), { recursive: true });
    await symlink(join(SDK_DIR, 'node_modules/@types/node'), join(installDir, 'node_modules/@types/node'), 'dir').catch(() => {});
    await writeFile(
      join(installDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, lib: ['ES2022', 'DOM'], types: ['node'] },
        include: ['*.mts', '*.cts'],
      }),
    );
    const use = `
const handler = createWebhookHandler({
  clientSecret: 'whsec_x',
  onEvent(event: WebhookEvent, meta) {
    const share: number = event.developer_share_vnd;
    const attempt: number | undefined = meta.attempt;
    void share, attempt;
  },
});
// @ts-expect-error clientSecret is required
createWebhookHandler({ onEvent() {} });
const ok: boolean = verifyStandardWebhook('{}', {}, 'whsec_x');
void handler, ok, webhookEventSchema('app.purchased');
`;
    await writeFile(
      join(installDir, 'esm.mts'),
      `import { createWebhookHandler, verifyStandardWebhook, webhookEventSchema, type WebhookEvent } from '@plaza/app-sdk/server';${use}`,
    );
    await writeFile(
      join(installDir, 'cjs.cts'),
      `import sdk = require('@plaza/app-sdk/server');\nconst { createWebhookHandler, verifyStandardWebhook, webhookEventSchema } = sdk;\ntype WebhookEvent = sdk.WebhookEvent;${use}`,
    );
    const typecheck = await run(TSC, ['-p', 'tsconfig.json'], installDir);
    expect(typecheck.stdout + typecheck.stderr).toBe('');
    expect(typecheck.code).toBe(0);
  });
});

describe('a receiver built only from the installed SDK', SLOW_START, () => {
  for (const [moduleKind, file] of [
    ['ES module import', 'receiver.mjs'],
    ['CommonJS require', 'receiver.cjs'],
  ] as const) {
    it(`(${moduleKind}) verifies a real delivery from Plaza and refuses the same request tampered`, async () => {
      const code = await readmeReceiver();
      await writeFile(join(installDir, file), file.endsWith('.cjs') ? asCommonJs(code) : code);

      // Plaza needs the Webhook URL at submission and the receiver needs the secret the submission makes.
      const port = await findFreePort();
      const url = `http://127.0.0.1:${port}/webhooks/plaza`;
      const app = await submitApp(developer, { webhookUrl: url });
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
      const secret = (await developer.ok<{ revealClientSecret: { value: string } }>(REVEAL, { appId: app.id })).revealClientSecret.value;
      const receiver: ScriptProcess = startScript(process.execPath, [file], { cwd: installDir, env: { PORT: String(port), PLAZA_CLIENT_SECRET: secret } });
      await receiver.waitFor(/receiving Plaza webhooks on /);

      const delivery = await emitEvent(plaza, app.id);
      const done = await waitForDelivery(developer, delivery.id, isFinal, 60_000);
      expect(done.status).toBe('SUCCEEDED');
      expect(done.attempts[0].statusCode).toBe(200);
      await receiver.waitFor(new RegExp(`app\\.purchased ${done.purchaseId} for usr_buyer_1 \\(delivery ${delivery.id}, attempt 1\\)`));

      // The same delivery signed now by Plaza for its owner: accepted as it is (already processed), refused with one byte changed.
      const { webhookForwardRequest } = await developer.ok<{ webhookForwardRequest: { body: string; headers: { name: string; value: string }[] } }>(FORWARD, {
        id: delivery.id,
      });
      const headers = Object.fromEntries(
        webhookForwardRequest.headers.filter(({ name }) => !/^(content-length|host|user-agent)$/i.test(name)).map(({ name, value }) => [name, value]),
      );
      const send = (body: string) => fetch(url, { method: 'POST', headers, body });
      const genuine = await send(webhookForwardRequest.body);
      expect(genuine.status).toBe(200);
      const tampered = await send(webhookForwardRequest.body.replace('"amount_vnd":50000', '"amount_vnd":50001'));
      expect(webhookForwardRequest.body).toContain('"amount_vnd":50000');
      expect(tampered.status).toBe(401);
      expect(await tampered.text()).toBe('Invalid webhook signature');
      expect(receiver.output().match(/app\.purchased /g)).toHaveLength(1);
      await receiver.stop();
    });
  }
});
