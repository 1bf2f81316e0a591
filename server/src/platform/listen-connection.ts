import pg from 'pg';
import { logger } from './logger.js';

export interface ListenConnection {
  /** The connection while it is listening; undefined while it is down and being re-made. */
  readonly client: pg.Client | undefined;
  close(): Promise<void>;
}

/**
 * A connection attempt that gets no answer (a failed-over address, a half-open proxy) gives up after this long and
 * is retried, as the pool's do (database.ts), instead of hanging with nothing listening.
 */
export const LISTEN_CONNECT_TIMEOUT_MS = 10_000;
/**
 * TCP keepalive probes start after this long idle: a LISTEN connection is idle for as long as nothing is notified,
 * and without them a peer that vanished (a failover, a NAT dropping the flow) goes unnoticed until the OS's default of
 * two hours, while notifications are lost.
 */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;
const FIRST_RETRY_MS = 250;
/** Retries at least every second: whatever is sent before the connection LISTENs again is lost to it. */
const MAX_RETRY_MS = 1000;

/**
 * A connection that LISTENs on `channels` and stays listening: when PostgreSQL restarts or the
 * connection drops, it reconnects with backoff and LISTENs again, then calls `onReconnected`
 * (notifications sent while it was down are lost, so callers catch up there). Resolves once the
 * first connection listens; a failure there is the caller's to report.
 */
export async function listenContinuously(options: {
  databaseUrl: string;
  channels: string[];
  /** For the logs: what stops working while the connection is down. */
  purpose: string;
  /** PostgreSQL's application_name for the connection, so that others can count the listeners (pg_stat_activity). */
  applicationName?: string;
  onNotification: (message: pg.Notification) => void;
  onReconnected?: () => void;
}): Promise<ListenConnection> {
  let closed = false;
  let current: pg.Client | undefined;

  const listen = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      connectionTimeoutMillis: LISTEN_CONNECT_TIMEOUT_MS,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    });
    client.on('notification', options.onNotification);
    // Without a listener, a dropped connection's 'error' event would crash the process.
    client.on('error', (err) => {
      logger.warn({ err }, `${options.purpose}: database connection lost; reconnecting`);
      // The connection's failure is logged on the line above; ending a broken connection may fail as well.
      void client.end().catch(() => undefined);
    });
    try {
      await client.connect();
      for (const channel of options.channels) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      // The failure that matters is thrown below; ending a half-opened connection may fail as well.
      void client.end().catch(() => undefined);
      throw err;
    }
    // Only a connection that was listening starts a reconnect when it ends: a failed attempt is retried
    // by the loop that made it, so one outage never runs two loops.
    client.on('end', () => {
      if (current === client) current = undefined;
      // Never rejects: reconnect() logs each failed try and keeps trying until close().
      if (!closed) void reconnect();
    });
    current = client;
    // Closed while connecting: nothing listens any more, so a failure to end is nobody's concern.
    if (closed) await client.end().catch(() => undefined);
  };

  const reconnect = async (): Promise<void> => {
    for (let delay = FIRST_RETRY_MS; !closed; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      await new Promise((r) => setTimeout(r, delay));
      if (closed) return;
      try {
        await listen();
        logger.info(`${options.purpose}: listening again`);
        options.onReconnected?.();
        return;
      } catch (err) {
        logger.warn({ err: (err as Error).message }, `${options.purpose}: could not reconnect yet`);
      }
    }
  };

  await listen();
  return {
    get client() {
      return current;
    },
    close: async () => {
      closed = true;
      // Shutting down: a connection that fails to end cleanly is closed by the server all the same.
      await current?.end().catch(() => undefined);
    },
  };
}
