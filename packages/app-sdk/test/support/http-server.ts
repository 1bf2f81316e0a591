import { type RequestListener, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 and a free port. */
export async function startServer(listener: RequestListener): Promise<RunningServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
