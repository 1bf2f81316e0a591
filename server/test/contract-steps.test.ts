import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { REPO_ROOT } from '../src/config.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';

const APP_QUEUE_INDEX = 'idx_webhook_deliveries_app_queue';

async function indexExists(url: string, name: string): Promise<boolean> {
  const db = await connectPlazaDatabase(url, 2);
  try {
    return ((await db.query('SELECT to_regclass($1) IS NOT NULL AS present', [name])) as { present: boolean }[])[0]!.present;
  } finally {
    await db.destroy();
  }
}

/** `pnpm migrate:contract` as an operator runs it: its exit code and what it printed. */
async function runContract(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'server/dist/scripts/contract.js')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, output };
}

describe('what only the previous release used (contract steps)', () => {
  it('is never made on a database Plaza builds from nothing: no process of an earlier release can be using it', async () => {
    const url = await createTestDatabase();
    expect(await indexExists(url, APP_QUEUE_INDEX)).toBe(false);
    // The index the engine claims by now is there.
    expect(await indexExists(url, 'idx_webhook_deliveries_endpoint_queue')).toBe(true);
  }, 60_000);

  it('stays on a database upgraded from the release before endpoints until the operator runs `pnpm migrate:contract`, which removes it once', async () => {
    const url = await createTestDatabase();
    // The previous release's schema, as its processes left it; then this release starts on it.
    await (await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex('WebhookEndpoints1796000028000')))).destroy();
    expect(await indexExists(url, APP_QUEUE_INDEX)).toBe(true);
    // Started (indexExists connects as Plaza does, running the rest of the migrations): the previous release's workers may still claim by it.
    expect(await indexExists(url, APP_QUEUE_INDEX)).toBe(true);

    const first = await runContract(url);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(new RegExp(`removed ${APP_QUEUE_INDEX}: the per-app queue`));
    expect(await indexExists(url, APP_QUEUE_INDEX)).toBe(false);

    const again = await runContract(url);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/nothing to remove/);
  }, 120_000);

  it('refuses plainly without a database to contract', async () => {
    // A data directory no `pnpm start` runs in: no embedded database to join.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'plaza-contract-'));
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'server/dist/scripts/contract.js')], {
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
    rmSync(dataDir, { recursive: true, force: true });
    expect(stderr).toMatch(/DATABASE_URL is not set/);
  }, 60_000);
});
