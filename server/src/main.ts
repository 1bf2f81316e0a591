import { ConfigError, loadConfig, type Config } from './config.js';
import { logger } from './platform/logger.js';
import { startPlaza } from './app/plaza.js';
import { oneLine, stopOnSignals } from './platform/shutdown.js';
import { startTracing } from './platform/tracing.js';

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    // One clear line naming the variable, then stop: a half-configured platform is worse than none.
    console.error(`Plaza cannot start: ${err.message}`);
    process.exit(1);
  }
  throw err;
}

// Before anything that makes spans or runs statements; a no-op without OTEL_EXPORTER_OTLP_ENDPOINT.
await startTracing(config, 'plaza-api');

// startPlaza has stopped whatever it started by the time it rejects: one line, no stack, then exit.
const starting = startPlaza(config).catch((err: unknown) => {
  console.error(`Plaza cannot start: ${oneLine(err)}`);
  process.exit(1);
});

// The worker's grace for attempts in flight, plus time to close HTTP connections and pools.
stopOnSignals('Plaza', starting, config.shutdownGraceMs + 15_000);

const plaza = await starting;
logger.info({ url: config.platformOrigin, port: plaza.port, embeddedDatabase: !config.databaseUrl, worker: config.runWorker }, `Plaza is ready at ${config.platformOrigin}`);
