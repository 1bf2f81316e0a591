import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AnsiToHtml from 'ansi-to-html';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { startHttpsServer } from '../support/https-servers.js';
import { PlazaApi, publishApp } from '../support/plaza-api.js';
import { REVIEWER_EMAIL, startPlaza, type PlazaProcess } from '../support/plaza-process.js';
import { REPO_ROOT, SCREENSHOTS_DIR } from '../support/paths.js';

// The real `plaza` binary, as `pnpm plaza` runs it (built by `pnpm build`).
const CLI = path.join(REPO_ROOT, 'packages/cli/dist/main.js');
const SCOPES = ['deliveries:read', 'deliveries:write', 'apps:read'];

let plaza: PlazaProcess;
let browser: Browser;
let webhookEndpoint: Awaited<ReturnType<typeof startHttpsServer>>;
let localServer: Server;
const localRequests: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  plaza = await startPlaza();
  browser = await launchChromium();
  webhookEndpoint = await startHttpsServer((_request, response) => response.writeHead(200).end('ok'));
  // The developer's own server on their laptop: plain http on loopback, which Plaza itself would refuse.
  localServer = createServer((request, response) => {
    localRequests.push(request.headers);
    request.resume().on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => localServer.listen(0, '127.0.0.1', resolve));
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await webhookEndpoint?.close();
  localServer?.close();
  await plaza?.stop();
});

/** Runs the CLI to its end, as a user's shell would. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The terminal a developer would look at: the command they typed, then what the CLI printed, in its own colours. */
function terminalPage(command: string, coloured: string): string {
  const html = new AnsiToHtml({ fg: '#d8dee9', bg: '#16181d', escapeXML: true }).toHtml(coloured);
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>plaza listen</title>
<style>body{margin:0;background:#0d0f13;padding:24px;font:14px/1.55 'DejaVu Sans Mono',monospace}
.window{background:#16181d;color:#d8dee9;border-radius:8px;padding:16px 20px;white-space:pre;width:max-content;min-width:900px}
.prompt{color:#8fbcbb}</style>
<div class="window"><span class="prompt">$</span> ${command}\n${html}</div></html>`;
}

describe('plaza listen, as the README shows it', () => {
  it('forwards a real install and a triggered event to a plain-http localhost server, printing each answer', async () => {
    const developer = await PlazaApi.signIn(plaza.origin, 'listen@studio.test');
    const reviewer = await PlazaApi.signIn(plaza.origin, REVIEWER_EMAIL);
    const buyer = await PlazaApi.signIn(plaza.origin, 'listen-buyer@example.com');
    const appId = await publishApp(developer, reviewer, {
      name: 'Quiz Time',
      appUrl: `${webhookEndpoint.origin}/`,
      webhookUrl: `${webhookEndpoint.origin}/webhooks/plaza`,
    });
    const { createApiToken } = await developer.ok<{ createApiToken: { token: string } }>('mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }', {
      input: { name: 'laptop', scopes: SCOPES },
    });
    const configHome = mkdtempSync(path.join(tmpdir(), 'plaza-cli-e2e-'));
    const env = { PLAZA_URL: plaza.origin, PLAZA_TOKEN: createApiToken.token, XDG_CONFIG_HOME: configHome, HOME: configHome };
    const { port } = localServer.address() as { port: number };
    const forwardTo = `http://localhost:${port}/webhooks/plaza`;

    // FORCE_COLOR: the colours a terminal would show, although this is a pipe.
    const listen = spawn(process.execPath, [CLI, 'listen', '--app', appId, '--forward-to', forwardTo], {
      env: { PATH: process.env.PATH, ...env, FORCE_COLOR: '1' },
    });
    let printed = '';
    listen.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    listen.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const waitForPrinted = (pattern: RegExp) =>
      vi.waitFor(
        () => {
          if (!pattern.test(printed)) throw new Error(`${pattern} was not printed within 30 s; printed:\n${printed}`);
        },
        { timeout: 30_000, interval: 100 },
      );
    try {
      await waitForPrinted(/Ctrl-C to stop/);
      await buyer.ok('mutation($appId: ID!) { installApp(appId: $appId) { id } }', { appId });
      await waitForPrinted(/app\.installed.*--> 204/);
      const trigger = await runCli(['trigger', 'app.purchased', '--app', appId], env);
      expect(trigger.code, trigger.stderr).toBe(0);
      await waitForPrinted(/app\.purchased.*--> 204.*\[test\]/);
    } finally {
      listen.kill('SIGINT');
    }

    // Both reached the local server, the triggered one marked as a test.
    expect(localRequests).toHaveLength(2);
    expect(localRequests.map((headers) => headers['x-platform-test'] ?? null)).toEqual([null, 'true']);

    const page = await browser.newPage({ viewport: { width: 1000, height: 300 }, deviceScaleFactor: 1 });
    await page.setContent(terminalPage(`pnpm plaza listen --app ${appId} --forward-to ${forwardTo}`, printed.trimEnd()));
    await page.locator('.window').screenshot({ path: path.join(SCREENSHOTS_DIR, 'cli-listen.png') });
    await page.close();
  }, 120_000);
});
