import { createServer, type Server } from 'node:http';
import { logger } from '../platform/logger.js';
import { metricsEndpoint } from '../platform/metrics.js';
import type { Services } from './services.js';

/**
 * What an orchestrator and Prometheus need from a process that serves no API (`pnpm worker`):
 * GET /healthz, /readyz and /metrics on their own port, answering the same as the API's.
 */
export async function startOpsServer(port: number, services: Services): Promise<{ close(): Promise<void> }> {
  const scrapeMetrics = metricsEndpoint(services.metrics, services.config.metricsToken);
  const server: Server = createServer((req, res) => {
    // Never rejects: its catch below logs the failure and answers 500.
    void (async () => {
      const path = (req.url ?? '/').split('?', 1)[0];
      if (req.method !== 'GET') return void res.writeHead(405, { allow: 'GET' }).end();
      if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      if (path === '/readyz') {
        const { httpStatus, body } = await services.readiness.answer();
        return void res.writeHead(httpStatus, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }
      if (path === '/metrics') {
        const { httpStatus, headers, body } = await scrapeMetrics(req.headers.authorization);
        return void res.writeHead(httpStatus, headers).end(body);
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    })().catch((err: Error) => {
      logger.error({ err }, 'operations endpoint failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
