import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import { inject } from 'vitest';

/** An HTTPS server with the tests' localhost certificate, on IPv4 and IPv6 (browsers may try either for "localhost"). */
export async function startHttpsServer(handler: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const tls = inject('e2eTls');
  const server: Server = createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handler);
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `https://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A webhook receiver that always answers 500, so deliveries to it collect attempts (each with its request headers) and end FAILED. */
export function startFailingReceiver(): ReturnType<typeof startHttpsServer> {
  return startHttpsServer((_request, response) => {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('receiver error: simulated');
  });
}

/** GET over HTTPS trusting the tests' CA (this process has no NODE_EXTRA_CA_CERTS, see global-setup.ts). */
export function getJson<T>(url: string): Promise<T> {
  const ca = readFileSync(inject('e2eTls').caFile);
  return new Promise((resolve, reject) => {
    get(url, { ca }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`GET ${url} answered ${response.statusCode}: ${body}`));
        resolve(JSON.parse(body) as T);
      });
    }).on('error', reject);
  });
}
