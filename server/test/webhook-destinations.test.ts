import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { blockedAddressReason } from '../src/platform/outbound-http/address-policy.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import type { GraphQLTestClient } from './helpers/graphql-client.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { aimWebhookAt, emitEvent, waitForDelivery } from './helpers/webhooks.js';

let receiver: WebhookReceiver;
let strict: TestPlaza;
let strictDeveloper: GraphQLTestClient;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  // Retries far away: each case looks at its first attempt only.
  strict = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT: '2s' });
  strictDeveloper = await strict.signIn('ssrf@studio.test');
});

/**
 * Submission already refuses these URLs, so each is written straight into the app, as if it had been
 * stored before a policy change: the engine's own check, at every attempt, is what is under test.
 */
async function firstAttemptTo(plaza: TestPlaza, developer: GraphQLTestClient, url: string) {
  const app = await submitApp(developer);
  await aimWebhookAt(plaza, app.id, url);
  const delivery = await emitEvent(plaza, app.id);
  const done = await waitForDelivery(developer, delivery.id, (d) => d.attempts.length > 0 && d.attempts[0].finished);
  return done.attempts[0];
}

describe('address classification', () => {
  it.each([
    ['2002:7f00:1::1', /6to4/],
    ['2002:808:808::1', /6to4/], // the whole range, even around a public IPv4
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['64:ff9b:1::a00:5', /NAT64/],
    ['64:ff9b::808:808', /NAT64/],
    ['fec0::1', /site-local/],
    ['feff:ffff::1', /site-local/],
    ['::ffff:0:a00:1', /IPv4-translated/],
    ['::7f00:1', /IPv4-compatible/],
    ['::ffff:10.0.0.1', /mapped onto 10\.0\.0\.1, a private address/],
    ['::ffff:a9fe:a9fe', /mapped onto 169\.254\.169\.254, a link-local/],
    ['0.0.0.0', /reserved/],
    ['255.255.255.255', /reserved/],
    ['192.0.2.1', /reserved/],
    ['2001:db8::1', /reserved/],
    ['100::1', /reserved/],
  ])('refuses %s', (address, words) => {
    expect(blockedAddressReason(address)).toMatch(words);
  });

  it.each(['8.8.8.8', '1.1.1.1', '::ffff:8.8.8.8', '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:82b::200e'])('lets the public address %s through', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });
});

describe('internal destinations', () => {
  const port = () => receiver.port;
  const spellings: [string, () => string][] = [
    ['loopback', () => `https://127.0.0.1:${port()}/hook`],
    ['loopback, short form', () => `https://127.1:${port()}/hook`],
    ['loopback, decimal', () => `https://2130706433:${port()}/hook`],
    ['loopback, octal', () => `https://0177.0.0.1:${port()}/hook`],
    ['loopback, hex', () => `https://0x7f.0.0.1:${port()}/hook`],
    ['localhost', () => `https://localhost:${port()}/hook`],
    ['0.0.0.0', () => `https://0.0.0.0:${port()}/hook`],
    ['private 10/8', () => 'https://10.0.0.5/hook'],
    ['private 172.16/12', () => 'https://172.16.4.4/hook'],
    ['private 192.168/16', () => 'https://192.168.1.10/hook'],
    ['CGNAT', () => 'https://100.64.1.1/hook'],
    ['link-local metadata', () => 'https://169.254.169.254/latest/meta-data'],
    ['metadata host name', () => 'https://metadata.google.internal/computeMetadata/v1'],
    ['IPv6 loopback', () => `https://[::1]:${port()}/hook`],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${port()}/hook`],
    ['IPv6 unique local', () => 'https://[fd00::1]/hook'],
    ['IPv6 link-local', () => 'https://[fe80::1]/hook'],
    ['6to4 (2002::/16)', () => 'https://[2002:7f00:1::1]/hook'],
    ['Teredo (2001::/32)', () => 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook'],
    ['NAT64 local-use (64:ff9b:1::/48)', () => 'https://[64:ff9b:1::a00:5]/hook'],
    ['NAT64 well-known (64:ff9b::/96)', () => 'https://[64:ff9b::7f00:1]/hook'],
    ['IPv6 site-local (fec0::/10)', () => 'https://[fec0::1]/hook'],
    ['IPv4-compatible IPv6 loopback', () => `https://[::127.0.0.1]:${port()}/hook`],
  ];
  it.each(spellings)('refuses %s at attempt time, with a clear error, sending nothing', async (_name, url) => {
    const before = receiver.requests.length;
    const attempt = await firstAttemptTo(strict, strictDeveloper, url());
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toMatch(/^refused: .*(loopback|private|link-local|CGNAT|metadata|reserved|internal)/);
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses a name that resolves to an internal address (checked on the resolved address, so rebinding cannot pass)', async () => {
    const name = hostname();
    const { address } = await lookup(name);
    expect(blockedAddressReason(address), `this machine's name ${name} must resolve to an internal address for this test`).toBeDefined();
    const attempt = await firstAttemptTo(strict, strictDeveloper, `https://${name}:${receiver.port}/hook`);
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toMatch(new RegExp(`^refused: ${name} resolves to ${address.replace(/\./g, '\\.')}`));
  });

  it('refuses plain http when private URLs are not allowed', async () => {
    const attempt = await firstAttemptTo(strict, strictDeveloper, 'http://hooks.example.com/plaza');
    expect(attempt.error).toBe('refused: webhook URLs must use HTTPS');
  });

  it('delivers to the same destinations when private URLs are allowed', async () => {
    const open = await startTestPlaza({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const developer = await open.signIn('lan@studio.test');
    for (const url of [
      receiver.url(),
      `http://2130706433:${receiver.port}/hook`,
      `http://0177.0.0.1:${receiver.port}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `http://${hostname()}:${receiver.port}/hook`,
    ]) {
      const attempt = await firstAttemptTo(open, developer, url);
      expect(attempt, url).toMatchObject({ statusCode: 200, error: null });
    }
  });
});
