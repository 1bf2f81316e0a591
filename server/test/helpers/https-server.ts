import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, inject } from 'vitest';

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A real HTTPS server on 127.0.0.1 with the test CA's localhost certificate; `url()` uses https://localhost:<port>. */
export async function startHttpsServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const { cert, key } = inject('tls');
  const server = createServer({ cert, key }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const port = (server.address() as { port: number }).port;
  return { port, url: (path = '/') => `https://localhost:${port}${path}` };
}
