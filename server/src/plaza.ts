import 'reflect-metadata';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { connectDatabase } from './platform/database.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './platform/embedded-postgres.js';
import { createHttpServer } from './platform/http-server.js';
import { logger } from './platform/logger.js';
import { PostgresPubSub } from './platform/pubsub.js';
import { buildPlazaSchema } from './platform/schema.js';
import { createServices, type Services } from './platform/services.js';
import { startJobWorker, type JobWorker } from './platform/job-worker.js';

export interface RunningPlaza {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  services: Services;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Starts one Plaza API process: database (embedded when no URL is given), live updates, HTTP and WebSocket. */
export async function startPlaza(config: Config, options: { listenPort?: number } = {}): Promise<RunningPlaza> {
  let embedded: EmbeddedDatabase | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({ databaseDir: path.join(config.dataDir, 'pg') });
    databaseUrl = embedded.url;
    logger.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  }
  const db = await connectDatabase(databaseUrl, config.databasePoolSize);
  const pubSub = await PostgresPubSub.connect(databaseUrl);
  const services = createServices(config, db, pubSub);
  const schema = await buildPlazaSchema(pubSub);
  const http = await createHttpServer(services, schema);
  // The worker starts before the port opens, so anything that sees /readyz sees a platform that delivers too.
  const worker: JobWorker | undefined = config.runWorker ? await startJobWorker(config, databaseUrl, services) : undefined;
  await new Promise<void>((resolve, reject) => {
    http.server.once('error', reject);
    http.server.listen(options.listenPort ?? config.port, resolve);
  });
  const port = (http.server.address() as AddressInfo).port;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await http.close();
      await worker?.stop();
      await services.http.close();
      await pubSub.close();
      services.mailer.close();
      await db.destroy();
      await embedded?.stop();
    })());
  return { url: `http://127.0.0.1:${port}`, port, services, databaseUrl, stop };
}
