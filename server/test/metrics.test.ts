import { beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { startOpsServer } from '../src/app/ops-server.js';
import { startTestPlaza, type TestPlaza } from './helpers/plaza.js';
import { submitApp } from './helpers/factories.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

let plaza: TestPlaza;
let origin: string;

beforeAll(async () => {
  // Two retries 200 ms apart, so an always-failing destination reaches FAILED within the test.
  plaza = await startTestPlaza({ WEBHOOK_RETRY_SCHEDULE: '200ms,200ms' });
  origin = plaza.url;
});

/** The value of one sample line of the exposition, e.g. `name{label="x"}`; undefined when absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const response = await fetch(`${origin}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

describe('/metrics', () => {
  it('counts attempts by outcome, finished deliveries, the open backlog, and HTTP and GraphQL latency', async () => {
    const developer = await plaza.signIn('metrics@studio.test');
    const healthy = await WebhookReceiver.start();
    const broken = await WebhookReceiver.start(() => ({ status: 503, body: 'down' }));
    const before = await scrape();
    const good = await submitApp(developer, { webhookUrl: healthy.url() });
    const bad = await submitApp(developer, { webhookUrl: broken.url() });
    const succeeded = await emitEvent(plaza, good.id);
    const failed = await emitEvent(plaza, bad.id);
    await waitForDelivery(developer, succeeded.id, isFinal);
    expect((await waitForDelivery(developer, failed.id, isFinal)).status).toBe('FAILED');
    await developer.ok('{ me { id } }');

    const after = await scrape();
    const grew = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    expect(grew('plaza_webhook_attempt_duration_seconds_count{outcome="success"}')).toBe(1);
    // The first attempt and both retries.
    expect(grew('plaza_webhook_attempt_duration_seconds_count{outcome="failure"}')).toBe(3);
    expect(grew('plaza_webhook_deliveries_finished_total{status="SUCCEEDED"}')).toBe(1);
    expect(grew('plaza_webhook_deliveries_finished_total{status="FAILED"}')).toBe(1);
    expect(sample(after, 'plaza_webhook_deliveries_open{status="PENDING"}')).toBe(0);
    expect(sample(after, 'plaza_webhook_deliveries_open{status="RETRYING"}')).toBe(0);
    expect(sample(after, 'plaza_webhook_due_backlog')).toBe(0);
    expect(grew('plaza_graphql_operation_duration_seconds_count{operation_type="query",root_field="me",outcome="ok"}')).toBe(1);
    expect(sample(after, 'plaza_http_request_duration_seconds_count{method="POST",route="/graphql",status_code="200"}')).toBeGreaterThan(0);
    expect(sample(after, 'plaza_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('shows deliveries that are due but not yet attempted, and how late the oldest is', async () => {
    // A Plaza whose worker is off stands for workers that have fallen behind.
    const idle = await startTestPlaza({ RUN_WORKER: 'false' });
    const developer = await idle.signIn('backlog@studio.test');
    const app = await submitApp(developer, { webhookUrl: 'https://backlog.example/hook' });
    const late = await emitEvent(idle, app.id);
    await emitEvent(idle, app.id);
    await idle.services.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() - interval '30 seconds' WHERE id = $1`, [late.id]);

    const response = await fetch(`${idle.url}/metrics`);
    const exposition = await response.text();
    expect(sample(exposition, 'plaza_webhook_deliveries_open{status="PENDING"}')).toBe(2);
    expect(sample(exposition, 'plaza_webhook_due_backlog')).toBe(2);
    expect(sample(exposition, 'plaza_webhook_due_backlog_oldest_seconds')).toBeGreaterThanOrEqual(30);
  });

  it('with METRICS_TOKEN set, answers only a scrape bearing it, on the API port and on a worker port alike', async () => {
    const token = 'scrape-7f3a9c1e5b2d4806';
    const guarded = await startTestPlaza({ RUN_WORKER: 'false', METRICS_TOKEN: token });
    const port = await findFreePort();
    const ops = await startOpsServer(port, guarded.services);
    try {
      for (const origin of [guarded.url, `http://127.0.0.1:${port}`]) {
        for (const authorization of [undefined, 'Bearer wrong-token-0000000000', token, `Basic ${token}`]) {
          const refused = await fetch(`${origin}/metrics`, { headers: authorization ? { authorization } : {} });
          expect(refused.status, `${origin} ${authorization}`).toBe(401);
          expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="plaza-metrics"');
          expect(await refused.text()).not.toContain('plaza_');
        }
        const scraped = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(scraped.status).toBe(200);
        expect(await scraped.text()).toContain('plaza_process_resident_memory_bytes');
        // Orchestrators' probes carry no token and need none.
        expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      }
    } finally {
      await ops.close();
    }
  });
});
