import 'reflect-metadata';
import { ConfigError, loadConfig } from '../config.js';
import { connectPlazaDatabase } from '../app/entities.js';
import { readEmbeddedDatabaseUrl } from '../platform/embedded-postgres.js';
import { applyContractSteps, CONTRACT_STEPS } from '../platform/migrations/contract-steps.js';

/**
 * `pnpm migrate:contract`: the last step of an upgrade, once no process of the previous release runs.
 * Removes what only the previous release used (platform/migrations/contract-steps.ts); each removal holds
 * nothing that writes wait for, so Plaza keeps serving and delivering meanwhile.
 */
let databaseUrl: string | undefined;
try {
  const config = loadConfig();
  databaseUrl = config.databaseUrl ?? readEmbeddedDatabaseUrl(config.dataDir);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`Plaza cannot contract: ${err.message}`);
  process.exit(1);
}
if (!databaseUrl) {
  console.error('Plaza cannot contract: DATABASE_URL is not set and no running `pnpm start` shares an embedded database in DATA_DIR');
  process.exit(1);
}
const db = await connectPlazaDatabase(databaseUrl, 2);
try {
  const removed = await applyContractSteps(db);
  if (removed.length === 0) console.log(`nothing to remove: ${CONTRACT_STEPS.map((step) => step.name).join(', ')} already gone`);
  for (const name of removed) console.log(`removed ${name}: ${CONTRACT_STEPS.find((step) => step.name === name)!.why}`);
} finally {
  await db.destroy();
}
