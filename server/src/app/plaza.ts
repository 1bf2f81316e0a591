import 'reflect-metadata';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import type { Config } from '../config.js';
import { connectPlazaDatabase } from './entities.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../platform/embedded-postgres.js';
import { declareListBounds } from '../platform/graphql-limits.js';
import { createHttpServer } from './http-server.js';
import { logger } from '../platform/logger.js';
import { failOnStrayErrors, stopDeadline, waitAtMostUntil } from '../platform/shutdown.js';
import { PostgresPubSub } from '../platform/pubsub.js';
import { buildPlazaSchema } from './schema.js';
import { createServices, type Services } from './services.js';
import { startJobWorker, stopJobWorkerBy, type JobWorker } from './job-worker.js';

export interface RunningPlaza {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  services: Services;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts one Plaza API process: database (embedded when no URL is given), live updates, HTTP and
 * WebSocket. If any step fails, what the earlier steps started is stopped again, newest first (above
 * all the embedded PostgreSQL, which would otherwise outlive the failed process), and the error is passed on.
 */
export async function startPlaza(config: Config, options: { listenPort?: number } = {}): Promise<RunningPlaza> {
  const started: Array<() => unknown> = [];
  const undo = async () => {
    for (const stop of started.reverse())
      await Promise.resolve()
        .then(stop)
        .catch((err: Error) => logger.warn({ err: err.message }, 'stopping a part of a failed start failed'));
  };
  try {
    return await failOnStrayErrors(() => start(config, options, started));
  } catch (err) {
    await undo();
    throw err;
  }
}

async function start(config: Config, options: { listenPort?: number }, started: Array<() => unknown>): Promise<RunningPlaza> {
  const listenPort = options.listenPort ?? config.port;
  // Checked first, so a taken port costs no database start (and the WebSocket server, which shares the
  // HTTP server's errors, is not left to report a failed listen with a stack of its own).
  await assertPortFree(listenPort);
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    if (config.production) {
      logger.warn('the embedded PostgreSQL is meant for one machine and a small installation: set DATABASE_URL to a PostgreSQL server you back up and monitor for anything more');
    }
    embedded = await startEmbeddedPostgres({ databaseDir: path.join(config.dataDir, 'pg') });
    started.push(embedded.stop);
    databaseUrl = embedded.url;
    logger.info({ dataDir: config.dataDir, clusterDir: embedded.clusterDir }, 'embedded PostgreSQL started');
  }
  const db = await connectPlazaDatabase(databaseUrl, config.databasePoolSize);
  started.push(() => db.destroy());
  const pubSub = await PostgresPubSub.connect(databaseUrl);
  started.push(() => pubSub.close());
  const services = createServices(config, db, pubSub);
  started.push(
    () => services.mailer.close(),
    () => services.http.close(),
  );
  const schema = await buildPlazaSchema({ pubSub, services });
  // myApps is unpaged: the query cost estimate counts it (and myEarnings, a row per app) by the per-account limit.
  declareListBounds(schema, {
    'Query.myApps': config.maxAppsPerDeveloper,
    'Query.myEarnings': config.maxAppsPerDeveloper,
    'App.webhookEndpoints': config.webhookEndpointsPerApp,
  });
  const http = await createHttpServer(services, schema);
  started.push(() => http.close());
  // The worker starts before the port opens, so anything that sees /readyz sees a platform that delivers too.
  const worker: JobWorker | undefined = config.runWorker ? await startJobWorker(config, databaseUrl, services) : undefined;
  if (worker) started.push(() => worker.stop());
  await new Promise<void>((resolve, reject) => {
    http.server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? portInUse(listenPort) : err));
    http.server.listen(listenPort, resolve);
  });
  const port = (http.server.address() as AddressInfo).port;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // As a worker process stops (worker.ts): attempts in flight get the grace, and every wait on the way out ends
      // with it too, closing a moment after, so an unreachable database (a statement or a connect that never ends)
      // does not hold the process until its hard deadline. The embedded PostgreSQL is this process's own: it is
      // always stopped, and its stop has bounds of its own.
      const deadline = stopDeadline(config.shutdownGraceMs);
      await waitAtMostUntil('the HTTP server', () => http.close(), deadline);
      if (worker) await stopJobWorkerBy(worker, deadline);
      await waitAtMostUntil('outbound HTTP', () => services.http.close(), deadline);
      await waitAtMostUntil('the LISTEN connection', () => pubSub.close(), deadline);
      services.mailer.close();
      await waitAtMostUntil('the database pool', () => db.destroy(), deadline);
      await embedded?.stop();
    })());
  return { url: `http://127.0.0.1:${port}`, port, services, databaseUrl, stop };
}

const portInUse = (port: number) => new Error(`port ${port} is already in use: stop what holds it or set PORT to a free port`);

/** Binds `port` as the HTTP server will (all addresses) and lets it go again. */
async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? portInUse(port) : err));
    probe.listen(port, () => probe.close(() => resolve()));
  });
}
