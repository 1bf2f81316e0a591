import type { DataSource, QueryRunner } from 'typeorm';
import { byOneProcessAtATime } from './concurrent-indexes.js';

/**
 * The "contract" of expand, backfill, switch, contract: what this release no longer uses but the previous
 * release still does, removed only once no process of the previous release can be running. A migration
 * cannot know that (the previous release's workers run beside a rolling upgrade), so these steps run
 * at once only on a database this start built from nothing (nothing older ever served it), and otherwise
 * when the operator says the upgrade is over (`pnpm migrate:contract`). Each step is idempotent: it is
 * pending while what it removes is there.
 */
export interface ContractStep {
  /** What the step removes, as the database names it. */
  name: string;
  /** Why it goes, for the operator reading the start-up log. */
  why: string;
  /** One row with `pending`: whether what the step removes is still there. */
  pendingSql: string;
  /** The removal, holding no lock that writes wait for (run outside a transaction). */
  sql: string;
}

/** A step that drops an index only the previous release reads by (CONCURRENTLY: writes never wait for it). */
const droppedIndex = (name: string, why: string): ContractStep => ({
  name,
  why,
  pendingSql: `SELECT to_regclass('${name}') IS NOT NULL AS pending`,
  sql: `DROP INDEX CONCURRENTLY IF EXISTS "${name}"`,
});

export const CONTRACT_STEPS: readonly ContractStep[] = [
  // One index entry fewer for every delivery recorded and every claim that is not a HOT update.
  droppedIndex(
    'idx_webhook_deliveries_app_queue',
    'the per-app queue the release before endpoints claims by; this release claims per endpoint (idx_webhook_deliveries_endpoint_queue)',
  ),
  // About 150 bytes of every delivery's 2,400 on disk (the index is half empty: each app's new entries split pages in
  // the middle of it), and one index entry fewer for every delivery recorded and every status change.
  droppedIndex(
    'idx_webhook_deliveries_app',
    "the index the release before this one reads one app's Webhook Logs by; this release reads them by app and status (idx_webhook_deliveries_app_status)",
  ),
  // About 40 bytes of every delivery (78 for its entry, against a hash's 4 bytes and pointer: 38).
  droppedIndex(
    'idx_webhook_deliveries_purchase',
    "the btree the release before this one reads a purchase's Webhook Logs by; this release reads them by a hash index (idx_webhook_deliveries_purchase_hash)",
  ),
];

async function isPending(session: QueryRunner, step: ContractStep): Promise<boolean> {
  return ((await session.query(step.pendingSql)) as { pending: boolean }[])[0]!.pending;
}

/** The steps whose removal has not run on this database. */
export async function pendingContractSteps(dataSource: DataSource): Promise<ContractStep[]> {
  const session = dataSource.createQueryRunner();
  try {
    const pending: ContractStep[] = [];
    for (const step of CONTRACT_STEPS) if (await isPending(session, step)) pending.push(step);
    return pending;
  } finally {
    await session.release();
  }
}

/**
 * Runs every pending step, one process at a time (the concurrent index builds' lock: a concurrent drop and
 * build on one table would wait for each other); returns the names of those it ran here.
 */
export async function applyContractSteps(dataSource: DataSource): Promise<string[]> {
  const ran: string[] = [];
  const session = dataSource.createQueryRunner();
  try {
    for (const step of CONTRACT_STEPS) {
      const ranHere = await byOneProcessAtATime(
        session,
        async () => !(await isPending(session, step)),
        async () => {
          await session.query(step.sql);
        },
      );
      if (ranHere) ran.push(step.name);
    }
  } finally {
    await session.release();
  }
  return ran;
}
