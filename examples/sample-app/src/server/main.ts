import { createServer } from 'node:https';
import { createSampleApp } from './app-server.js';
import { ConfigError, readConfig, type SampleAppConfig } from './config.js';
import { loadTlsCredentials } from './tls.js';

function configOrExit(): SampleAppConfig {
  try {
    return readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`sample-app: ${error.message}`);
    process.exit(1);
  }
}

const config = configOrExit();
const tls = loadTlsCredentials(config.tls);
const { handle } = createSampleApp(config);
const server = createServer({ cert: tls.cert, key: tls.key }, handle);

// No host: both IPv4 and IPv6, since "localhost" resolves to either for browsers and for Plaza's webhooks.
server.listen(config.port, () => {
  const { port } = server.address() as { port: number };
  console.log(`sample-app listening on https://localhost:${port} (app ${config.appId}, platform ${config.platformOrigin})`);
  if (tls.selfSignedFile) {
    console.log(`self-signed certificate ${tls.selfSignedFile}: open https://localhost:${port} once and accept the browser's warning, or the iframe in Plaza stays blank`);
  }
});

function shutDown(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.once('SIGTERM', shutDown);
process.once('SIGINT', shutDown);
