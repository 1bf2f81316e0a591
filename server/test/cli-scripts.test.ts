import { beforeAll, describe, expect, it } from 'vitest';
import { cliFor, type RunCli } from './helpers/cli.js';
import { submitApp } from './helpers/factories.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';

// A CLI that scripts can trust (issue 28, section 3): exit codes 0/1/3, results on stdout and diagnostics on
// stderr, one line for a failure. The real `plaza` binary against a real Plaza and real receivers.

const REVOKE = 'mutation($id: ID!) { revokeApiToken(id: $id) }';

let plaza: TestPlaza;
let developer: GraphQLTestClient;
let receiver: WebhookReceiver;

beforeAll(async () => {
  plaza = await startTestPlaza();
  developer = await plaza.signIn('cli-scripts@studio.test');
  receiver = await WebhookReceiver.start(() => ({ status: 200 }));
});

const errorLines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '' && !/^(Watching|Forwarding|Stopped)/.test(line.trim()));

describe('a token revoked while a live command runs', () => {
  it.each([
    ['tail', (appId: string) => ['tail', '--app', appId], 'Watching the deliveries'],
    ['listen', (appId: string) => ['listen', '--app', appId, '--forward-to', 'http://127.0.0.1:9/hook'], 'Forwarding'],
  ])('%s says so in one line on stderr and exits 1', async (_name, args, started) => {
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const cli: RunCli = await cliFor(plaza.url, developer);
    const running = cli.start(args(app.id));
    await running.waitFor('stderr', started);
    await developer.ok(REVOKE, { id: cli.token.id });
    expect(await running.exited).toBe(1);
    // graphql-ws printed the whole CloseEvent (about 140 lines) with console.error before the CLI's own line.
    expect(errorLines(running.out.stderr)).toEqual([
      'Error: Plaza closed the live connection: the credential was revoked; run plaza login (or set PLAZA_TOKEN) with a valid token',
    ]);
    expect(running.out.stdout).toBe('');
  });
});
