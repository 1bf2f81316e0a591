import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createJobRuntime } from '../src/platform/jobs.js';
import { createTestDatabase } from './helpers/database.js';

/**
 * A TCP proxy to the test database that, while `cutListens` is set, cuts any connection as soon as its
 * client sends a LISTEN: the connection was made and authenticated, and dies under its first statement, as
 * it does when a failover's address switch lands between a reconnect's connect and its LISTEN.
 */
class ListenCuttingProxy {
  cutListens = false;
  listensCut = 0;
  listensPassed = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((client) => {
    const upstream = net.connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('LISTEN "')) {
        if (this.cutListens) {
          this.listensCut += 1;
          client.destroy();
          return;
        }
        this.listensPassed += 1;
      }
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

describe('the job store after its LISTEN connection died mid-reconnect', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('closes within seconds: no connection of its pool is left checked out by a failed LISTEN', async () => {
    const direct = new URL(await createTestDatabase());
    const proxy = new ListenCuttingProxy(direct.hostname, Number(direct.port));
    cleanups.push(() => proxy.close());
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(await proxy.listen());
    // Through the proxy's TCP port, not the cluster's socket directory.
    proxied.searchParams.delete('host');
    const config = loadConfig({ DATABASE_URL: proxied.toString() });
    const jobs = await createJobRuntime(config, proxied.toString(), 'job-store-shutdown-test');
    await jobs.agenda.start();
    await expect.poll(() => proxy.listensPassed, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(1);

    // The LISTEN connection is cut, and its reconnects connect and then die under their LISTEN, a few times over.
    proxy.cutListens = true;
    proxy.cutAll();
    await expect.poll(() => proxy.listensCut, { timeout: 20_000, interval: 50 }).toBeGreaterThanOrEqual(2);
    // Then the database is reachable again, and the channel listens again.
    const listensBefore = proxy.listensPassed;
    proxy.cutListens = false;
    await expect.poll(() => proxy.listensPassed, { timeout: 20_000, interval: 50 }).toBeGreaterThan(listensBefore);

    const started = Date.now();
    const closed = await Promise.race([jobs.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still closing'), 15_000))]);
    expect(closed).toBe('closed');
    // Not a bound on speed: a close that waits for a connection nobody will give back never ends.
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);
});
