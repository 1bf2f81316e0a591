import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectPlazaDatabase } from '../src/app/entities.js';
import { MIGRATIONS } from '../src/platform/migrations/index.js';
import { createTestDatabase, migratedDataSource, migrationIndex } from './helpers/database.js';
import { runBuiltToExit } from './helpers/script-process.js';

const APP_QUEUE_INDEX = 'idx_webhook_deliveries_app_queue';
/** The index the release before the log's merged status pages read one app's Webhook Logs by. */
const APP_INDEX = 'idx_webhook_deliveries_app';
/** The btree the same release read a purchase's Webhook Logs by (a hash index since). */
const PURCHASE_INDEX = 'idx_webhook_deliveries_purchase';
/** The last migration of that release (the change that stopped reading by APP_INDEX and PURCHASE_INDEX added none). */
const BEFORE_MERGED_STATUS_PAGES = 'CredentialNotices1796000035500';

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
  const run = await runBuiltToExit('scripts/contract.js', { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' });
  return { code: run.code, output: run.stdout + run.stderr };
}

describe('what only the previous release used (contract steps)', () => {
  it('is never made on a database Plaza builds from nothing: no process of an earlier release can be using it', async () => {
    const url = await createTestDatabase();
    expect(await indexExists(url, APP_QUEUE_INDEX)).toBe(false);
    expect(await indexExists(url, APP_INDEX)).toBe(false);
    expect(await indexExists(url, PURCHASE_INDEX)).toBe(false);
    // The indexes the engine claims by and the log reads by now are there.
    expect(await indexExists(url, 'idx_webhook_deliveries_endpoint_queue')).toBe(true);
    expect(await indexExists(url, 'idx_webhook_deliveries_app_status')).toBe(true);
    expect(await indexExists(url, 'idx_webhook_deliveries_purchase_hash')).toBe(true);
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

  it("keeps the previous release's indexes for one app's and one purchase's Webhook Logs on its database until `pnpm migrate:contract`", async () => {
    const url = await createTestDatabase();
    await (await migratedDataSource(url, MIGRATIONS.slice(0, migrationIndex(BEFORE_MERGED_STATUS_PAGES) + 1))).destroy();
    // Started on it: the previous release's API processes may still serve the log beside this one's. The hash index is built.
    expect(await indexExists(url, APP_INDEX)).toBe(true);
    expect(await indexExists(url, PURCHASE_INDEX)).toBe(true);
    expect(await indexExists(url, 'idx_webhook_deliveries_purchase_hash')).toBe(true);

    const contract = await runContract(url);
    expect(contract.code, contract.output).toBe(0);
    expect(contract.output).toMatch(new RegExp(`removed ${APP_INDEX}: the index the release before this one reads one app's Webhook Logs by`));
    expect(contract.output).toMatch(new RegExp(`removed ${PURCHASE_INDEX}: the btree the release before this one reads a purchase's Webhook Logs by`));
    expect(await indexExists(url, APP_INDEX)).toBe(false);
    expect(await indexExists(url, PURCHASE_INDEX)).toBe(false);
    expect(await indexExists(url, 'idx_webhook_deliveries_app_status')).toBe(true);
  }, 120_000);

  it('refuses plainly without a database to contract', async () => {
    // A data directory no `pnpm start` runs in: no embedded database to join.
    const dataDir = mkdtempSync(path.join(tmpdir(), 'plaza-contract-'));
    const run = await runBuiltToExit('scripts/contract.js', { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    rmSync(dataDir, { recursive: true, force: true });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toMatch(/DATABASE_URL is not set/);
  }, 60_000);
});
