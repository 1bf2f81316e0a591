/**
 * The benchmarks' webhook receiver, in a worker thread so its signature checks use their own event
 * loop: it verifies every X-Platform-Signature on the raw bytes and answers 200.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const secrets = new Map<string, string>(Object.entries(workerData.secretsByAppId as Record<string, string>));
let verified = 0;
let rejected = 0;
let firstByteAt: number[] = [];

const server = createServer((req, res) => {
  const arrivedAt = Date.now();
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const appId = /"app_id":"([^"]+)"/.exec(body.toString('utf8'))?.[1] ?? '';
    const secret = secrets.get(appId) ?? '';
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    const given = Buffer.from(String(req.headers['x-platform-signature'] ?? ''));
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    if (ok) {
      verified += 1;
      if (workerData.recordArrivals) firstByteAt.push(arrivedAt);
    } else rejected += 1;
    res.writeHead(ok ? 200 : 401).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(workerData.port ?? 0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as { port: number }).port }));

parentPort!.on('message', (message: { type: string }) => {
  if (message.type === 'count') parentPort!.postMessage({ verified, rejected });
  if (message.type === 'arrivals') {
    parentPort!.postMessage({ arrivals: firstByteAt });
    firstByteAt = [];
  }
  if (message.type === 'reset') {
    verified = 0;
    rejected = 0;
    firstByteAt = [];
    parentPort!.postMessage({ ok: true });
  }
});
