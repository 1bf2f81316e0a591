import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { afterAll } from 'vitest';
import type { AtLeast } from './lists.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived on the wire. */
  rawBody: Buffer;
  receivedAt: number;
}

/**
 * How the receiver answers the nth request (0-based): a status (after `delayMs`, and once `until` has settled,
 * if given: a test holds an answer until what it stages has happened), or 'hang' to never answer.
 */
export type Responder = (
  request: ReceivedRequest,
  index: number,
) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number; until?: Promise<unknown> } | 'hang';

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A real HTTP server that records every webhook request, answering as the test scripts it. */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly hanging = new Set<ServerResponse>();

  /** Requests answered 'hang' whose connection is still open: what the sender holds at this moment. */
  get hangingNow(): number {
    return this.hanging.size;
  }
  /**
   * The most requests this receiver has held unanswered at one moment (a 'hang' ends when the client
   * gives up on it): what a sender keeps open at once, whatever the machine's speed.
   */
  mostHangingAtOnce = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
    public responder: Responder,
  ) {}

  static async start(responder: Responder = () => ({ status: 200, body: 'ok' })): Promise<WebhookReceiver> {
    // Made once the server listens (it needs the port); the request handler only reads it after that.
    // eslint-disable-next-line prefer-const
    let receiver!: WebhookReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request: ReceivedRequest = { method: req.method!, path: req.url!, headers: req.headers, rawBody: Buffer.concat(chunks), receivedAt: Date.now() };
        const index = receiver.requests.push(request) - 1;
        receiver.waiters.splice(0).forEach((w) => w());
        const answer = receiver.responder(request, index);
        if (answer === 'hang') {
          receiver.hanging.add(res);
          receiver.mostHangingAtOnce = Math.max(receiver.mostHangingAtOnce, receiver.hanging.size);
          res.on('close', () => receiver.hanging.delete(res));
          return;
        }
        const respond = () => {
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? '');
        };
        const afterDelay = () => (answer.delayMs ? setTimeout(respond, answer.delayMs) : respond());
        // A held answer goes out whether the test's promise resolves or rejects.
        if (answer.until) void answer.until.finally(afterDelay);
        else afterDelay();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, (server.address() as { port: number }).port, responder);
    receivers.push(receiver);
    return receiver;
  }

  url(path = '/webhooks/plaza'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves when `count` requests have arrived in all. */
  async waitForRequests<N extends number>(count: N, timeoutMs = 10_000): Promise<AtLeast<N, ReceivedRequest>> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver got ${this.requests.length} of ${count} requests within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, left);
      });
    }
    // The loop above ends only once there are `count`.
    return this.requests as AtLeast<N, ReceivedRequest>;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
