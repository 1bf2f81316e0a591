import { createServer, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { LISTEN_CONNECT_TIMEOUT_MS, listenContinuously } from '../src/platform/listen-connection.js';

describe('a LISTEN connection to a database that never answers', () => {
  // Accepts TCP and then says nothing, as a half-open proxy or a failed-over address behind a load balancer does.
  const sockets = new Set<Socket>();
  const closedByClient: Socket[] = [];
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.resume(); // reads (and ignores) the startup message, so the client's close is seen
    socket.on('close', () => closedByClient.push(socket));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('gives up after its connect timeout and closes the socket, instead of hanging with nothing listening', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const started = performance.now();
    const connecting = listenContinuously({
      databaseUrl: `postgres://plaza:secret@127.0.0.1:${port}/plaza`,
      channels: ['plaza_test'],
      purpose: 'listen-connection test',
      onNotification: () => undefined,
    });
    await expect(connecting).rejects.toThrow(/timeout/i);
    const tookMs = performance.now() - started;
    // Not sooner than the timeout (it waited for an answer), and not much later (a busy machine's slack).
    expect(tookMs).toBeGreaterThanOrEqual(LISTEN_CONNECT_TIMEOUT_MS - 50);
    expect(tookMs).toBeLessThan(LISTEN_CONNECT_TIMEOUT_MS + 5_000);
    expect(sockets.size).toBe(1);
    await expect.poll(() => closedByClient.length, { timeout: 5_000 }).toBe(1);
  }, 30_000);
});
