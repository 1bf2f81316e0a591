import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { ADMIN_EMAIL, REVIEWER_EMAIL, startTestPlaza, TEST_ENCRYPTION_KEY } from './helpers/plaza.js';
import { GraphQLTestClient } from './helpers/graphql-client.js';
import { DECIDE, submitApp } from './helpers/factories.js';
import { startPlazaProcess } from './helpers/process.js';
import { openDatabase } from './faults/fault-helpers.js';
import { CLIENT, OtlpReceiver, SERVER, type ExportedSpan } from './helpers/otlp-receiver.js';
import { WebhookReceiver, type ReceivedRequest } from './helpers/webhook-receiver.js';
import { DELIVERY, isFinal, waitForDelivery, WEBHOOK_REQUEST_HEADERS } from './helpers/webhooks.js';

const BUY = 'mutation Buy($appId: ID!) { purchaseApp(appId: $appId) { purchaseId } }';
const RECOVER = 'mutation Recover($appId: ID!, $since: DateTime!) { recoverWebhookDeliveries(appId: $appId, since: $since) { deliveriesQueued } }';
const REDELIVER = 'mutation Redeliver($id: ID!) { redeliverWebhook(deliveryId: $id) { id status attemptCount } }';
const CREDIT = 'mutation($userId: ID!, $points: Int!, $reason: String!) { creditPoints(userId: $userId, points: $points, reason: $reason) { userId points } }';

/** What a purchase's webhook looks like at the receiver: the requests whose body names it. */
const requestsFor = (receiver: WebhookReceiver, purchaseId: string): ReceivedRequest[] =>
  receiver.requests.filter((request) => (JSON.parse(request.rawBody.toString()) as { purchase_id: string }).purchase_id === purchaseId);

/** Signs in the three people a purchase needs on `url`, lists a paid app whose webhook goes to `webhookUrl`, and gives the buyer points. */
async function marketplace(url: string, webhookUrl: string) {
  const developer = await GraphQLTestClient.signIn(url, `dev-${randomBytes(3).toString('hex')}@studio.test`);
  const reviewer = await GraphQLTestClient.signIn(url, REVIEWER_EMAIL);
  const admin = await GraphQLTestClient.signIn(url, ADMIN_EMAIL);
  const buyer = await GraphQLTestClient.signIn(url, `buyer-${randomBytes(3).toString('hex')}@users.test`);
  const app = await submitApp(developer, { webhookUrl, pricing: 'PAID', pricePoints: 10 });
  await reviewer.ok(DECIDE, { input: { appId: app.id, outcome: 'APPROVED' } });
  await admin.ok(CREDIT, { userId: buyer.userId, points: 100, reason: 'test balance' });
  return { developer, buyer, app };
}

/** An operation over plain HTTP as `client`, with the caller's own `traceparent` when given (a traced client or gateway in front of Plaza). */
async function traced<T>(url: string, client: GraphQLTestClient, query: string, variables: Record<string, unknown>, traceparent?: string): Promise<T> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${client.token}`, ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (!body.data) throw new Error(`${query} failed: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** A purchase over plain HTTP, with the caller's own `traceparent` when given. */
async function purchase(url: string, buyer: GraphQLTestClient, appId: string, traceparent?: string): Promise<string> {
  const data = await traced<{ purchaseApp: { purchaseId: string } }>(url, buyer, BUY, { appId }, traceparent);
  return data.purchaseApp.purchaseId;
}

/** A new W3C traceparent of a trace of its own (sampled), and its trace and span ids. */
function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let apiUrl: string;
  let databaseUrl: string;
  const refusing = new Set<string>();

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    // Each purchase's first request is refused (500), its retry accepted: two attempts per delivery. Paths in
    // `refusing` are refused every time, until taken out.
    const answered = new Map<string, number>();
    receiver = await WebhookReceiver.start((request) => {
      const { purchase_id } = JSON.parse(request.rawBody.toString()) as { purchase_id: string };
      const seen = (answered.get(purchase_id) ?? 0) + 1;
      answered.set(purchase_id, seen);
      if (refusing.has(request.path)) return { status: 500, body: 'down' };
      return seen === 1 ? { status: 500, body: 'try again' } : { status: 200, body: 'ok' };
    });
    databaseUrl = await createTestDatabase();
    const port = await findFreePort();
    const env = {
      DATABASE_URL: databaseUrl,
      SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
      PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
      WEB_DIST_DIR: '/nonexistent',
      WEBHOOK_RETRY_SCHEDULE: '300ms',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      // The SDK's own variable: export every 100 ms instead of every 5 s, so the test waits less.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    // The API records purchases and their events; deliveries are a worker process's: the trace crosses the outbox.
    // A first start migrates a new database: on a loaded machine that alone can take a minute.
    const api = await startPlazaProcess({ ...env, PORT: String(port), RUN_WORKER: 'false' }, 'main.js', undefined, { readyWithinMs: 120_000 });
    apiUrl = api.url;
    await startPlazaProcess(env, 'worker.js', /delivery worker started/, { readyWithinMs: 120_000 });
  }, 300_000);

  it("one trace holds a purchase's GraphQL operation, its SQL, the event it recorded and the worker's two attempts, which the receiver joins", { timeout: 120_000 }, async () => {
    const { developer, buyer, app } = await marketplace(apiUrl, `${receiver.url()}?token=do-not-export-me`);
    // The caller's own trace, which Plaza's spans must join.
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    const purchaseId = await purchase(apiUrl, buyer, app.id, `00-${callerTrace}-${callerSpan}-01`);

    // Refused once, then accepted: the delivery succeeds on its second attempt.
    await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
    const inTrace = () => otlp.spans.filter((span) => span.traceId === callerTrace);
    await vi.waitFor(() => expect(inTrace().filter((span) => span.name === 'POST')).toHaveLength(2), { timeout: 20_000, interval: 100 });
    expect(otlp.contentTypes).toEqual(new Set(['application/json']));

    const spans = inTrace();
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    /** Whether `span` descends from `ancestor` through parents in this trace. */
    const under = (span: ExportedSpan, ancestor: ExportedSpan): boolean => {
      for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) if (parent === ancestor) return true;
      return false;
    };

    // The GraphQL operation, joined to the caller's span, named by its operation.
    const operation = spans.find((span) => span.name === 'mutation Buy')!;
    expect(operation).toMatchObject({ service: 'plaza-api', kind: SERVER, parentSpanId: callerSpan });
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'Buy', 'http.response.status_code': 200 });

    // Its SQL: the transaction's statements, each a child of the operation (or of a span under it), named without values.
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThanOrEqual(4);
    for (const statement of statements) {
      expect(statement.kind).toBe(CLIENT);
      expect(under(statement, operation), statement.name).toBe(true);
    }
    expect(statements.map((span) => span.name)).toEqual(expect.arrayContaining(['START', 'COMMIT', 'plaza_record_webhook_events']));
    // No value a statement carried is in any span: neither the purchase, nor the buyer, nor the app.
    const exported = JSON.stringify(otlp.spans);
    for (const value of [purchaseId, buyer.userId, app.id, 'do-not-export-me']) expect(exported).not.toContain(value);

    // The event, recorded in the business transaction: its insert is its child.
    const event = spans.find((span) => span.name === 'webhook.event.record')!;
    expect(event.service).toBe('plaza-api');
    expect(under(event, operation)).toBe(true);
    expect(byId.get(statements.find((span) => span.name === 'plaza_record_webhook_events')!.parentSpanId)).toBe(event);

    // The worker's attempts, children of the event across the outbox: a refused one and its accepted retry.
    const attempts = spans.filter((span) => span.name === 'POST').sort((a, b) => Number(a.attributes['plaza.webhook.attempt']) - Number(b.attributes['plaza.webhook.attempt']));
    const deliveryId = String(requestsFor(receiver, purchaseId)[0]!.headers['x-platform-delivery']);
    const { attempts: recorded } = await waitForDelivery(developer, deliveryId, isFinal);
    expect(
      attempts.map((span) => ({
        service: span.service,
        kind: span.kind,
        parent: span.parentSpanId,
        attempt: span.attributes['plaza.webhook.attempt'],
        delivery: span.attributes['plaza.delivery.id'],
        method: span.attributes['http.request.method'],
        url: span.attributes['url.full'],
        status: span.attributes['http.response.status_code'],
        failed: span.status.code === 2,
      })),
    ).toEqual([
      { service: 'plaza-worker', kind: CLIENT, parent: event.spanId, attempt: 1, delivery: deliveryId, method: 'POST', url: receiver.url(), status: 500, failed: true },
      { service: 'plaza-worker', kind: CLIENT, parent: event.spanId, attempt: 2, delivery: deliveryId, method: 'POST', url: receiver.url(), status: 200, failed: false },
    ]);
    expect(recorded.map((attempt: any) => attempt.statusCode)).toEqual([500, 200]);

    // Each attempt links to the worker's claim that took it, and that claim links back to the event it claimed.
    const claims = otlp.spans.filter((span) => span.name === 'webhook.deliveries.claim');
    for (const attempt of attempts) {
      expect(attempt.links).toHaveLength(1);
      const claim = claims.find((span) => span.spanId === attempt.links[0]!.spanId)!;
      expect(claim.service).toBe('plaza-worker');
      expect(claim.links).toContainEqual({ traceId: callerTrace, spanId: event.spanId });
    }

    // The receiver was given each attempt's span as traceparent: a receiver that traces joins the purchase's trace.
    expect(requestsFor(receiver, purchaseId).map((request) => request.headers.traceparent)).toEqual(attempts.map((span) => `00-${callerTrace}-${span.spanId}-01`));
    // The log's stored request headers are what they were without tracing: traceparent is sent, not stored.
    const { webhookDelivery } = await developer.ok<any>(DELIVERY, { id: deliveryId });
    for (const attempt of webhookDelivery.attempts) expect(attempt.requestHeaders.map((h: { name: string }) => h.name)).not.toContain('traceparent');
  });

  it('a purchase without an incoming traceparent starts its own trace, which its attempts continue; a refused one says why by its code alone', { timeout: 120_000 }, async () => {
    const { buyer, app } = await marketplace(apiUrl, receiver.url());
    const purchaseId = await purchase(apiUrl, buyer, app.id);
    await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
    // A refused request's span says why by its error code; its message quotes the variables, which a trace must not carry.
    const refused = await fetch(`${apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${buyer.token}` },
      body: JSON.stringify({ query: BUY, variables: { appId: { planted: 'tr4ce-leak' } } }),
    });
    expect(JSON.stringify(await refused.json())).toContain('tr4ce-leak');
    await vi.waitFor(() => expect(otlp.spans.filter((span) => span.name === 'mutation Buy' && span.attributes['error.type'] === 'BAD_USER_INPUT')).toHaveLength(1), {
      timeout: 20_000,
      interval: 100,
    });
    expect(JSON.stringify(otlp.spans)).not.toContain('tr4ce-leak');
    const traceIds = requestsFor(receiver, purchaseId).map((request) => String(request.headers.traceparent).split('-')[1]);
    expect(new Set(traceIds).size).toBe(1);
    await vi.waitFor(
      () => {
        const trace = otlp.spans.filter((span) => span.traceId === traceIds[0]);
        const root = trace.find((span) => span.name === 'mutation Buy');
        expect(root?.parentSpanId).toBe('');
        expect(trace.filter((span) => span.name === 'POST').map((span) => span.attributes['http.response.status_code'])).toEqual(expect.arrayContaining([500, 200]));
      },
      { timeout: 20_000, interval: 100 },
    );
  });

  it(
    "a delivery sent again (recoverWebhookDeliveries, then redeliverWebhook) stays in its purchase's trace, each attempt linked to what sent it",
    { timeout: 120_000 },
    async () => {
      const path = `/webhooks/down-${randomBytes(4).toString('hex')}`;
      refusing.add(path);
      const { developer, buyer, app } = await marketplace(apiUrl, receiver.url(path));
      const bought = newTraceparent();
      const since = new Date(Date.now() - 60_000).toISOString();
      const purchaseId = await purchase(apiUrl, buyer, app.id, bought.traceparent);
      // Both scheduled attempts refused: the delivery fails, and its receiver comes back.
      await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
      const deliveryId = String(requestsFor(receiver, purchaseId)[0]!.headers['x-platform-delivery']);
      await waitForDelivery(developer, deliveryId, (d) => d.status === 'FAILED');
      refusing.delete(path);

      // Its developer recovers the app's failed deliveries (the worker sends them), then sends this one once more by hand (the API sends it), each from a trace of their own.
      const recovering = newTraceparent();
      const recovered = await traced<any>(apiUrl, developer, RECOVER, { appId: app.id, since }, recovering.traceparent);
      expect(recovered.recoverWebhookDeliveries.deliveriesQueued).toBe(1);
      await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(3), { timeout: 20_000, interval: 50 });
      await waitForDelivery(developer, deliveryId, (d) => d.status === 'SUCCEEDED');
      const redelivering = newTraceparent();
      const redelivered = await traced<any>(apiUrl, developer, REDELIVER, { id: deliveryId }, redelivering.traceparent);
      expect(redelivered.redeliverWebhook.attemptCount).toBe(4);
      expect(requestsFor(receiver, purchaseId)).toHaveLength(4);

      const attemptSpans = () =>
        otlp.spans
          .filter((span) => span.name === 'POST' && span.attributes['plaza.delivery.id'] === deliveryId)
          .sort((a, b) => Number(a.attributes['plaza.webhook.attempt']) - Number(b.attributes['plaza.webhook.attempt']));
      await vi.waitFor(() => expect(attemptSpans()).toHaveLength(4), { timeout: 20_000, interval: 100 });
      const event = otlp.spans.find((span) => span.traceId === bought.traceId && span.name === 'webhook.event.record')!;
      const redeliverOperation = await vi.waitFor(
        () => {
          const operation = otlp.spans.find((span) => span.traceId === redelivering.traceId && span.name === 'mutation Redeliver');
          expect(operation).toBeDefined();
          return operation!;
        },
        { timeout: 20_000, interval: 100 },
      );
      const claims = new Set(otlp.spans.filter((span) => span.name === 'webhook.deliveries.claim').map((span) => span.spanId));
      // Every attempt, scheduled, recovered or by hand, a child of the purchase's event: one trace from the purchase to each request.
      expect(
        attemptSpans().map((span) => ({
          service: span.service,
          trace: span.traceId,
          parent: span.parentSpanId,
          attempt: span.attributes['plaza.webhook.attempt'],
          status: span.attributes['http.response.status_code'],
          // What sent it: the worker's claim, or the request that asked for it.
          linkedTo: span.links.map((link) => (claims.has(link.spanId) ? 'claim' : link.spanId === redeliverOperation.spanId ? 'redeliverWebhook' : link.spanId)),
        })),
      ).toEqual([
        { service: 'plaza-worker', trace: bought.traceId, parent: event.spanId, attempt: 1, status: 500, linkedTo: ['claim'] },
        { service: 'plaza-worker', trace: bought.traceId, parent: event.spanId, attempt: 2, status: 500, linkedTo: ['claim'] },
        { service: 'plaza-worker', trace: bought.traceId, parent: event.spanId, attempt: 3, status: 200, linkedTo: ['claim'] },
        { service: 'plaza-api', trace: bought.traceId, parent: event.spanId, attempt: 4, status: 200, linkedTo: ['redeliverWebhook'] },
      ]);
      // The receiver was given each attempt's own span, in the purchase's trace.
      expect(requestsFor(receiver, purchaseId).map((request) => request.headers.traceparent)).toEqual(attemptSpans().map((span) => `00-${bought.traceId}-${span.spanId}-01`));
    },
  );

  it("the worker's batched writes of attempt results, and a developer's local forwards, are spans of their own", { timeout: 120_000 }, async () => {
    const { developer, buyer, app } = await marketplace(apiUrl, receiver.url());
    const purchaseId = await purchase(apiUrl, buyer, app.id);
    await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
    const deliveryId = String(requestsFor(receiver, purchaseId)[0]!.headers['x-platform-delivery']);
    await waitForDelivery(developer, deliveryId, (d) => d.status === 'SUCCEEDED');

    // Each attempt's result is written by one batched write: a span with the batch's size, linked to the attempts it recorded, its statement its child.
    const attempts = () => otlp.spans.filter((span) => span.name === 'POST' && span.attributes['plaza.delivery.id'] === deliveryId);
    await vi.waitFor(() => expect(attempts()).toHaveLength(2), { timeout: 20_000, interval: 100 });
    const writes = () => otlp.spans.filter((span) => span.name === 'webhook.attempts.record');
    await vi.waitFor(
      () => {
        for (const attempt of attempts()) expect(writes().filter((write) => write.links.some((link) => link.spanId === attempt.spanId))).toHaveLength(1);
      },
      { timeout: 20_000, interval: 100 },
    );
    for (const attempt of attempts()) {
      const write = writes().find((span) => span.links.some((link) => link.spanId === attempt.spanId))!;
      expect(write).toMatchObject({ service: 'plaza-worker', parentSpanId: '' });
      expect(write.attributes['messaging.batch.message_count']).toBeGreaterThanOrEqual(write.links.length);
      expect(otlp.spans.filter((span) => span.parentSpanId === write.spanId).map((span) => span.name)).toContain('plaza_deliveries_write_results');
    }

    // plaza listen's three steps: the delivery signed for the local receiver, what it answered, and a sample event.
    await traced(apiUrl, developer, 'query Forward($id: ID!) { webhookForwardRequest(deliveryId: $id) { deliveryId body } }', { id: deliveryId });
    await traced(apiUrl, developer, 'mutation Report($id: ID!) { reportLocalForward(deliveryId: $id, statusCode: 204, durationMs: 12) { id } }', { id: deliveryId });
    await traced(apiUrl, developer, 'mutation Trigger($appId: ID!) { triggerWebhookEvent(appId: $appId, event: APP_PURCHASED) { deliveryId } }', { appId: app.id });
    const under = (name: string, operation: string) =>
      vi.waitFor(
        () => {
          const span = otlp.spans.find((candidate) => candidate.name === name && otlp.spans.some((op) => op.spanId === candidate.parentSpanId && op.name === operation));
          expect(span, `${name} under ${operation}`).toBeDefined();
          return span!;
        },
        { timeout: 20_000, interval: 100 },
      );
    expect((await under('webhook.local_forward', 'query Forward')).attributes).toMatchObject({ 'plaza.delivery.id': deliveryId });
    expect((await under('webhook.local_forward.report', 'mutation Report')).attributes).toMatchObject({
      'plaza.delivery.id': deliveryId,
      'http.response.status_code': 204,
      'plaza.local_forward.duration_ms': 12,
    });
    expect((await under('webhook.local_forward.trigger', 'mutation Trigger')).attributes).toMatchObject({ 'plaza.webhook.event': 'app.purchased' });
  });
});

describe('with tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  it('sends webhook requests without traceparent, exactly the headers sent before tracing existed, and stores no trace context', { timeout: 120_000 }, async () => {
    const plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '300ms' });
    const receiver = await WebhookReceiver.start((_, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    const { buyer, app } = await marketplace(plaza.url, receiver.url());
    const purchaseId = await purchase(plaza.url, buyer, app.id, `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`);
    await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
    for (const request of requestsFor(receiver, purchaseId)) {
      expect(Object.keys(request.headers).sort()).toEqual(['connection', ...WEBHOOK_REQUEST_HEADERS].sort());
    }
    const rows: { trace_parent: string | null }[] = await plaza.services.db.query('SELECT trace_parent FROM webhook_deliveries WHERE purchase_id = $1', [purchaseId]);
    expect(rows).toEqual([{ trace_parent: null }]);
  });
});

describe('with OTEL_SDK_DISABLED=true (and OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  it('exports nothing, sends no traceparent and stores no trace context', { timeout: 240_000 }, async () => {
    const otlp = await OtlpReceiver.start();
    const receiver = await WebhookReceiver.start((_, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    // An API delivering in-process: every span Plaza makes, GraphQL to attempts, would come from this one process.
    const disabledDatabase = await createTestDatabase();
    const api = await startPlazaProcess(
      {
        DATABASE_URL: disabledDatabase,
        PORT: String(await findFreePort()),
        SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        PLATFORM_REVIEWER_EMAILS: REVIEWER_EMAIL,
        PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
        WEB_DIST_DIR: '/nonexistent',
        WEBHOOK_RETRY_SCHEDULE: '300ms',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_SDK_DISABLED: 'true',
      },
      'main.js',
      undefined,
      { readyWithinMs: 120_000 },
    );
    const { developer, buyer, app } = await marketplace(api.url, receiver.url());
    const purchaseId = await purchase(api.url, buyer, app.id, newTraceparent().traceparent);
    await vi.waitFor(() => expect(requestsFor(receiver, purchaseId)).toHaveLength(2), { timeout: 20_000, interval: 50 });
    for (const request of requestsFor(receiver, purchaseId)) expect(Object.keys(request.headers).sort()).toEqual(['connection', ...WEBHOOK_REQUEST_HEADERS].sort());
    const deliveryId = String(requestsFor(receiver, purchaseId)[0]!.headers['x-platform-delivery']);
    await waitForDelivery(developer, deliveryId, (d) => d.status === 'SUCCEEDED');
    // What the process would have exported by now (every 100 ms) it never sends: it is stopped and flushed, and still nothing came.
    expect(await api.stop('SIGTERM')).toBe(0);
    expect(otlp.spans).toEqual([]);
    expect(api.stdout()).not.toContain('exporting traces');
    const db = await openDatabase(disabledDatabase);
    try {
      expect((await db.query('SELECT trace_parent FROM webhook_deliveries WHERE id = $1', [deliveryId])).rows).toEqual([{ trace_parent: null }]);
    } finally {
      await db.end();
    }
  });
});
