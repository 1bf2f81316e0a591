import { ConfigError, loadConfig, type Config } from './config.js';
import { logger } from './platform/logger.js';
import { startPlaza } from './plaza.js';

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

const plaza = await startPlaza(config).catch((err: Error) => {
  console.error(`Plaza cannot start: ${err.message}`);
  process.exit(1);
});
logger.info({ url: config.platformOrigin, port: plaza.port, embeddedDatabase: !config.databaseUrl }, `Plaza is ready at ${config.platformOrigin}`);

let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (signalled) process.exit(1); // a second Ctrl-C means "now"
    signalled = true;
    logger.info({ signal }, 'shutting down');
    plaza.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
