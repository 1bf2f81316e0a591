import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string;
}

export type Responder = (request: RecordedRequest, response: ServerResponse) => void;

export interface FakePlazaServer {
  origin: string;
  requests: RecordedRequest[];
  /** Requests received and not yet answered: 0 once the server has replied to everything it heard. */
  unanswered(): number;
  /** One request of the test's own, neither recorded nor counted: requests the page sent before it are in by the time it returns. */
  roundTrip(): Promise<void>;
  respondWith(responder: Responder): void;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const ROUND_TRIP_PATH = '/__test-round-trip';

/** A real HTTP server on a free loopback port that records every request, so tests see what went over the wire. */
export async function startFakePlazaServer(): Promise<FakePlazaServer> {
  const requests: RecordedRequest[] = [];
  // Counted apart from `requests`, which tests may empty between cases.
  let inFlight = 0;
  let responder: Responder = (_request, response) => sendJson(response, 500, { error: 'no responder set in this test' });

  // A failure in here is the test's own bug, which vitest reports as an unhandled rejection and fails the run.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  const server = createServer(async (request, response) => {
    if (request.url === ROUND_TRIP_PATH) return void response.writeHead(204).end();
    inFlight++;
    response.on('close', () => void inFlight--);
    const recorded: RecordedRequest = {
      method: request.method ?? '',
      path: request.url ?? '',
      contentType: request.headers['content-type'],
      body: await readBody(request),
    };
    requests.push(recorded);
    responder(recorded, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    unanswered: () => inFlight,
    roundTrip: async () => void (await fetch(`http://127.0.0.1:${port}${ROUND_TRIP_PATH}`)),
    respondWith: (next) => void (responder = next),
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** Puts the test page on the server's origin, so the app's same-origin relative URLs reach it unchanged. */
export function browseFrom(origin: string): void {
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/`);
}
