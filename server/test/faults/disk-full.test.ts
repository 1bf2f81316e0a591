import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DECIDE, submitApp } from '../helpers/factories.js';
import { GraphQLTestClient } from '../helpers/graphql-client.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { destroyAllPg15, Pg15Server, postgresOwnedDir } from './debian-postgres.js';
import { expectAcknowledgedPurchasesDelivered, startApiProcess, startWorkerProcess, timedPurchase, type PurchaseOutcome } from './fault-helpers.js';

// Issue 29, section 4: PostgreSQL's data directory fills up under load. Its data (not its WAL, which
// would PANIC the server rather than refuse a write) is on a size-limited tmpfs; a file written beside
// it takes the last of the room, and removing that file frees it again.

const ADMIN_EMAIL = 'admin@plaza.test';
const REVIEWER_EMAIL = 'reviewer@plaza.test';
const PRICE = 10;
const APPS = 2;
const BUYERS = 80;
const CREDIT = 'mutation($userId: ID!, $points: Int!) { creditPoints(userId: $userId, points: $points, reason: "disk full test") { points } }';

const dir = mkdtempSync(path.join(tmpdir(), 'plaza-disk-full-'));
chmodSync(dir, 0o755);
const mountPoint = path.join(dir, 'fs');
mkdirSync(mountPoint);
let mounted = false;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  // Each cleanup runs even when one before it fails: a failure here would only hide the test's own result.
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await destroyAllPg15();
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `file` until the filesystem has no room left; returns the bytes written. */
function fillDisk(file: string): number {
  const fd = openSync(file, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 8192, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const readyz = (url: string) =>
  fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }),
    () => ({ status: 0, body: {} }),
  );

describe("PostgreSQL's disk fills up under load", () => {
  it('writes are refused with 503 and /readyz says why; nothing acknowledged is lost; Plaza recovers once space is freed', async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', mountPoint]);
    mounted = true;
    chmodSync(mountPoint, 0o755);
    const dataDir = path.join(mountPoint, 'data');
    const walDir = postgresOwnedDir(path.join(dir, 'wal'));
    await Pg15Server.initdb(dataDir, ['--waldir', walDir]);
    const server = await Pg15Server.start(dataDir);
    await server.query(['CREATE ROLE plaza_app LOGIN', 'CREATE DATABASE plaza OWNER plaza_app']);
    const databaseUrl = server.url('plaza', 'plaza_app');
    const api = await startApiProcess(databaseUrl, { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL });
    const worker = await startWorkerProcess(databaseUrl, { WEBHOOK_CLAIM_LEASE: '5s', WEBHOOK_TIMEOUT: '3s', WEBHOOK_RETRY_SCHEDULE: '500ms,500ms,1s,1s,1s' });

    const receiver = await WebhookReceiver.start();
    const [developer, reviewer, admin] = await Promise.all([
      GraphQLTestClient.signIn(api.url, 'disk@studio.test'),
      GraphQLTestClient.signIn(api.url, REVIEWER_EMAIL),
      GraphQLTestClient.signIn(api.url, ADMIN_EMAIL),
    ]);
    const appIds: string[] = [];
    for (let i = 0; i < APPS; i++) {
      const app = await submitApp(developer, { pricing: 'PAID', pricePoints: PRICE, webhookUrl: receiver.url() });
      await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
      appIds.push(app.id);
    }
    const pairs: { token: string; appId: string }[] = [];
    for (let i = 0; i < BUYERS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, BUYERS - i) }, async (_, j) => {
          const buyer = await GraphQLTestClient.signIn(api.url, `buyer-${i + j}@users.test`);
          await admin.ok(CREDIT, { userId: buyer.userId, points: PRICE * APPS });
          return buyer.token!;
        }),
      );
      for (const appId of appIds) for (const token of batch) pairs.push({ token, appId });
    }

    // Two clients buy, a purchase every 150 ms or so each; a refused one waits its Retry-After and is not asked again (it may have committed).
    const outcomes: PurchaseOutcome[] = [];
    let loading = true;
    let ranOut = false;
    const producer = async () => {
      while (loading) {
        const pair = pairs.shift();
        if (!pair) return void (ranOut = true);
        const outcome = await timedPurchase(api.url, pair.token, pair.appId);
        outcomes.push(outcome);
        await new Promise((r) => setTimeout(r, outcome.purchaseId ? 150 : Number(outcome.retryAfter ?? 1) * 1000));
      }
    };
    const producers = [producer(), producer()];
    const acknowledged = () => outcomes.filter((o) => o.purchaseId !== undefined);
    await vi.waitFor(() => expect(acknowledged().length).toBeGreaterThanOrEqual(10), { timeout: 60_000, interval: 50 });

    // The disk fills: the next write that needs a new page is refused (53100), and clients are told to come back.
    const ballast = path.join(mountPoint, 'ballast');
    const filledAt = Date.now();
    fillDisk(ballast);
    const refusedSince = (at: number) => outcomes.filter((o) => o.startedAt > at && o.purchaseId === undefined);
    await vi.waitFor(() => expect(refusedSince(filledAt).length, `ran out of buyers: ${ranOut}; ${JSON.stringify(outcomes.slice(-5))}`).toBeGreaterThanOrEqual(3), {
      timeout: 60_000,
      interval: 50,
    });
    await vi.waitFor(async () => expect(await readyz(api.url)).toEqual({ status: 503, body: { status: 'not ready', database: 'disk full' } }), {
      timeout: 10_000,
      interval: 100,
    });
    expect(api.output()).toMatch(/"code":"53100"/);

    // Space is freed: Plaza commits again by itself and /readyz turns 200.
    rmSync(ballast);
    const freedAt = Date.now();
    await vi.waitFor(() => expect(acknowledged().filter((o) => o.startedAt > freedAt).length).toBeGreaterThanOrEqual(5), { timeout: 60_000, interval: 50 });
    await vi.waitFor(async () => expect((await readyz(api.url)).status).toBe(200), { timeout: 30_000, interval: 100 });
    const readyAgainAfterFreeMs = Date.now() - freedAt;
    loading = false;
    await Promise.all(producers);

    // Every refusal was a clear 503; none hung.
    const refused = outcomes.filter((o) => o.purchaseId === undefined);
    expect(refused.filter((o) => o.status !== 503 || o.code !== 'SERVICE_UNAVAILABLE' || o.retryAfter === null)).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(20_000);

    // Nothing acknowledged is lost: each purchase is stored and its delivery succeeded and arrived.
    const ackedIds = acknowledged().map((o) => o.purchaseId!);
    await expectAcknowledgedPurchasesDelivered(server, ackedIds, receiver);
    console.log(JSON.stringify({ measured: { acknowledged: ackedIds.length, refused503: refused.length, readyAgainAfterFreeMs } }));

    expect(await worker.stop('SIGTERM'), worker.output()).toBe(0);
    expect(await api.stop('SIGTERM'), api.output()).toBe(0);
  }, 300_000);
});
