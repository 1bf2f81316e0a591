import { describe, expect, it } from 'vitest';
import { findFreePort } from '../src/platform/embedded-postgres.js';
import { createTestDatabase } from './helpers/database.js';
import { startWorkerProcess } from './faults/fault-helpers.js';

describe('pnpm worker with WORKER_HTTP_PORT', () => {
  it('answers /healthz, /readyz (database and job store) and /metrics on that port', async () => {
    const port = await findFreePort();
    const worker = await startWorkerProcess(await createTestDatabase(), { WORKER_HTTP_PORT: String(port) });
    try {
      const base = `http://127.0.0.1:${port}`;
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', jobStore: 'ok' });
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const exposition = await metrics.text();
      expect(exposition).toMatch(/^plaza_webhook_due_backlog 0$/m);
      expect(exposition).toMatch(/^plaza_process_resident_memory_bytes \d+/m);
      expect((await fetch(`${base}/graphql`)).status).toBe(404);
    } finally {
      await worker.stop();
    }
  });
});
