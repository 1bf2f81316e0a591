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
/** purchase_id -> when its request arrived (first attempt only), for the latency benchmark. */
let arrivals: [string, number][] = [];
/** Requests seen per delivery id, so the first `failFirst` attempts of each can be refused. */
const attemptsByDelivery = new Map<string, number>();
const failFirst: number = workerData.failFirst ?? 0;
/** Every `failEvery`-th delivery (by first arrival) answers its first attempt 500, as a receiver that fails now and then. */
const failEvery: number = workerData.failEvery ?? 0;
let deliveriesSeen = 0;
/** Deliveries that failed their first attempt on purpose (`failEvery`). */
const failedOnce = new Set<string>();
/** Ids of the deliveries answered 200 and not yet handed over (`recordVerified`), for a check that none is missing. */
let verifiedIds: string[] = [];

const server = createServer((req, res) => {
  // The first byte of the request: measured before the body is read.
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
    if (!ok) {
      rejected += 1;
      res.writeHead(401).end();
      return;
    }
    const deliveryId = String(req.headers['x-platform-delivery']);
    const seen = (attemptsByDelivery.get(deliveryId) ?? 0) + 1;
    attemptsByDelivery.set(deliveryId, seen);
    if (workerData.recordArrivals && seen === 1) arrivals.push([/"purchase_id":"([^"]+)"/.exec(body.toString('utf8'))?.[1] ?? '', arrivedAt]);
    if (seen === 1) deliveriesSeen += 1;
    if (seen === 1 && failEvery > 0 && deliveriesSeen % failEvery === 0) failedOnce.add(deliveryId);
    if (seen <= failFirst || (seen === 1 && failedOnce.has(deliveryId))) {
      res.writeHead(500).end();
      return;
    }
    verified += 1;
    if (workerData.recordVerified) verifiedIds.push(deliveryId);
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(workerData.port ?? 0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as { port: number }).port }));

parentPort!.on('message', (message: { type: string }) => {
  if (message.type === 'count') parentPort!.postMessage({ verified, rejected, requests: [...attemptsByDelivery.values()].reduce((a, b) => a + b, 0) });
  if (message.type === 'arrivals') {
    parentPort!.postMessage({ arrivals });
    arrivals = [];
  }
  if (message.type === 'verified-ids') {
    parentPort!.postMessage({ ids: verifiedIds, failedOnce: failedOnce.size });
    verifiedIds = [];
  }
  if (message.type === 'reset') {
    verified = 0;
    rejected = 0;
    arrivals = [];
    attemptsByDelivery.clear();
    parentPort!.postMessage({ ok: true });
  }
});
