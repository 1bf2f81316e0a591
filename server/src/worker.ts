import 'reflect-metadata';
import { ConfigError, loadConfig, type Config } from './config.js';
import { connectPlazaDatabase } from './app/entities.js';
import { readEmbeddedDatabaseUrl } from './platform/embedded-postgres.js';
import { failOnStrayErrors, oneLine, stopDeadline, stopOnSignals, waitAtMostUntil } from './platform/shutdown.js';
import { PostgresPubSub } from './platform/pubsub.js';
import { createServices } from './app/services.js';
import { startJobWorker, stopJobWorkerBy } from './app/job-worker.js';
import { startOpsServer } from './app/ops-server.js';
import { startTracing } from './platform/tracing.js';

/**
 * A delivery worker on its own (`pnpm worker`): scale deliveries out with more of these, and run the
 * API with RUN_WORKER=false. It needs DATABASE_URL, or a `pnpm start` on this machine whose embedded
 * database it joins.
 */
let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`Plaza worker cannot start: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
const databaseUrl = config.databaseUrl ?? readEmbeddedDatabaseUrl(config.dataDir);
if (!databaseUrl) {
  console.error('Plaza worker cannot start: DATABASE_URL is not set and no running `pnpm start` shares an embedded database in DATA_DIR');
  process.exit(1);
}

// Before anything that makes spans or runs statements; a no-op without OTEL_EXPORTER_OTLP_ENDPOINT.
await startTracing(config, 'plaza-worker');

const starting = failOnStrayErrors(async () => {
  // Each part is stopped again, newest first, if a later one fails to start.
  const started: Array<() => unknown> = [];
  try {
    const db = await connectPlazaDatabase(databaseUrl, config.databasePoolSize);
    started.push(() => db.destroy());
    const pubSub = await PostgresPubSub.connect(databaseUrl);
    started.push(() => pubSub.close());
    const services = createServices(config, db, pubSub);
    started.push(() => services.http.close());
    const worker = await startJobWorker(config, databaseUrl, services);
    started.push(() => worker.stop());
    const ops = config.workerHttpPort ? await startOpsServer(config.workerHttpPort, services) : undefined;
    return {
      stop: async () => {
        // Attempts in flight get the grace; every wait on the way out ends with it too, and the rest (closing
        // sockets and pools) a moment after: the results' writes are cut at the grace's end (AttemptResults.retryUntil).
        const deadline = stopDeadline(config.shutdownGraceMs);
        await waitAtMostUntil('the ops server', async () => ops?.close(), deadline);
        await stopJobWorkerBy(worker, deadline);
        await waitAtMostUntil('outbound HTTP', () => services.http.close(), deadline);
        await waitAtMostUntil('the LISTEN connection', () => pubSub.close(), deadline);
        await waitAtMostUntil('the database pool', () => db.destroy(), deadline);
      },
    };
  } catch (err) {
    // The start-up failure is what is thrown below; a stop that fails as well would only hide it.
    for (const stop of started.reverse())
      await Promise.resolve()
        .then(stop)
        .catch(() => undefined);
    throw err;
  }
}).catch((err: unknown) => {
  console.error(`Plaza worker cannot start: ${oneLine(err)}`);
  process.exit(1);
});

// The worker's grace for attempts in flight, plus time to close HTTP connections and pools.
stopOnSignals('Plaza worker', starting, config.shutdownGraceMs + 15_000);
