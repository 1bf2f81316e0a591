import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/config.js';

const run = promisify(execFile);

/**
 * The release before endpoints (issue 26): main at 5e366ed, the schema that WebhookEndpoints1796000028000
 * starts from. A rolling upgrade runs its workers beside this release's.
 */
export const PREVIOUS_RELEASE = '5e366ed';

export interface PreviousRelease {
  /** The checkout's root: its server/dist is that release's build. */
  root: string;
  /** How long the worktree, its install and its server build took. */
  builtInSeconds: number;
  remove(): Promise<void>;
}

/**
 * Checks `commit` out of this repository's own history into a temporary worktree and builds its server (as
 * CI has the whole clone, nothing is fetched): about 30 s on an idle machine (worktree 0.5 s, offline install
 * from the store 9 s, server build 21 s), 43-52 s beside other tests. `remove()` deletes the worktree and its registration.
 */
export async function buildPreviousRelease(commit = PREVIOUS_RELEASE): Promise<PreviousRelease> {
  const started = Date.now();
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'plaza-previous-')), 'plaza');
  // Best effort, twice over: a worktree git no longer knows is removed from disk anyway, and prune forgets it.
  const remove = async () => {
    await run('git', ['-C', REPO_ROOT, 'worktree', 'remove', '--force', root]).catch(() => undefined);
    rmSync(path.dirname(root), { recursive: true, force: true });
    await run('git', ['-C', REPO_ROOT, 'worktree', 'prune']).catch(() => undefined);
  };
  try {
    await run('git', ['-C', REPO_ROOT, 'worktree', 'add', '--detach', '--quiet', root, commit]);
    const options = { cwd: root, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true' } };
    await run('pnpm', ['install', '--frozen-lockfile', '--offline'], options);
    await run('pnpm', ['--filter', '@plaza/server...', 'build'], options);
    if (!existsSync(path.join(root, 'server/dist/worker.js'))) throw new Error(`the build of ${commit} has no server/dist/worker.js`);
  } catch (error) {
    await remove();
    throw new Error(`could not build the previous release ${commit} in a worktree: ${String(error)}`);
  }
  return { root, builtInSeconds: (Date.now() - started) / 1000, remove };
}

/** One event the previous release's producer committed: when it began, how long its transaction took. */
export interface Produced {
  id: string;
  startedAt: number;
  ms: number;
}

/**
 * Purchases' app.purchased events for `appId`, committed `perSecond` times a second by the previous release's own
 * code (its WebhookEventsService, in a process of its own, as that release's API records a purchase), each
 * transaction timed. A transaction is started on schedule whether or not the one before has ended, so a
 * stall shows as long transactions rather than as fewer of them. SIGTERM stops it after those in flight end.
 */
export async function startPreviousProducer(release: PreviousRelease, databaseUrl: string, appId: string, perSecond: number) {
  const script = path.join(release.root, 'server/dist/rolling-upgrade-producer.mjs');
  writeFileSync(
    script,
    `import 'reflect-metadata';
import { connectPlazaDatabase } from './app/entities.js';
import { WebhookEventsService } from './modules/webhooks/webhook-events.service.js';
import { WebhookEventType } from './modules/webhooks/webhook.types.js';
import { newPurchaseId } from './platform/ids.js';
const db = await connectPlazaDatabase(process.env.DATABASE_URL, 10);
const events = new WebhookEventsService(db);
let stopping = false;
process.on('SIGTERM', () => (stopping = true));
const inFlight = new Set();
console.log(JSON.stringify({ producing: true }));
while (!stopping) {
  const startedAt = Date.now();
  const started = performance.now();
  const purchase = db
    .transaction((manager) => events.recordEvent(manager, { type: WebhookEventType.APP_PURCHASED, appId: process.env.APP_ID, userId: 'usr_rolling', purchaseId: newPurchaseId(), amountVnd: 50000, developerShareVnd: 40000 }))
    .then(
      (delivery) => console.log(JSON.stringify({ produced: { id: delivery.id, startedAt, ms: performance.now() - started } })),
      (error) => console.log(JSON.stringify({ failed: String(error), startedAt })),
    );
  inFlight.add(purchase);
  purchase.finally(() => inFlight.delete(purchase));
  await new Promise((resolve) => setTimeout(resolve, ${1000 / perSecond}));
}
await Promise.all(inFlight);
await db.destroy();
process.exit(0);
`,
  );
  const child: ChildProcess = spawn(process.execPath, [script], {
    cwd: path.dirname(script),
    env: { ...process.env, DATABASE_URL: databaseUrl, APP_ID: appId, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = () => output.split('\n').filter((line) => line.startsWith('{"produced"') || line.startsWith('{"failed"'));
  return {
    output: () => output,
    produced: (): Produced[] => lines().flatMap((line) => (JSON.parse(line) as { produced?: Produced }).produced ?? []),
    failures: (): string[] => lines().flatMap((line) => (JSON.parse(line) as { failed?: string }).failed ?? []),
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
