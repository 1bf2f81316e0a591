import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DeliveryRunner, RunState } from '../src/modules/webhooks/delivery/delivery-runner.js';
import { sqlLiterals } from '../src/platform/sql-literals.js';
import { createJobRuntime } from '../src/platform/jobs.js';
import { DELIVER_WEBHOOKS_JOB, defineDeliverWebhooksJob } from '../src/modules/webhooks/jobs/deliver-webhooks.job.js';
import { submitApp } from './helpers/factories.js';
import { startTestPlaza } from './helpers/plaza.js';
import { WebhookReceiver } from './helpers/webhook-receiver.js';
import { DELIVERY, emitEvent, isFinal, waitForDelivery } from './helpers/webhooks.js';

const SRC = path.resolve(import.meta.dirname, '../src');
const sources = (dir: string) =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));

describe('the delivery engine along its seams', () => {
  it('spells statuses and triggers in its SQL only through DeliveryStatus/AttemptTrigger, and only platform/database.ts reaches into TypeORM for the pool', () => {
    const webhooks = path.join(SRC, 'modules/webhooks');
    const literals = sources(webhooks)
      // The enums themselves (the lifecycle's states among them) and the entities' index declarations (a colleague's, read by migrations) aside.
      .filter((file) => !/(webhook\.types|delivery-lifecycle|\.entity|webhook-events\.service)\.ts$/.test(file))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'(PENDING|RETRYING|SUCCEEDED|FAILED|SCHEDULED|MANUAL)'/g)].map((m) => `${path.relative(SRC, file)}: ${m[0]}`));
    expect(literals).toEqual([]);

    const intoDriver = sources(SRC)
      .filter((file) => /\.driver as unknown|\.master\b/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    expect(intoDriver).toEqual(['platform/database.ts']);

    expect(sqlLiterals('PENDING', 'RETRYING')).toBe(`'PENDING', 'RETRYING'`);
    expect(() => sqlLiterals("x'; DROP TABLE apps; --")).toThrow(/not a plain constant/);
  });

  it('says where the run stands: queued on a wake-up, running while it delivers, stopped after stop(), and asks for no run once stopped', async () => {
    // The API process runs no worker: this test's runner is the only one.
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    const developer = await plaza.signIn('runner@studio.test');
    const receiver = await WebhookReceiver.start();
    const app = await submitApp(developer, { webhookUrl: receiver.url() });
    const jobs = await createJobRuntime(plaza.services.config, plaza.databaseUrl, 'runner-test');
    try {
      const runner = new DeliveryRunner(jobs, plaza.services.webhookEngine, plaza.services.deliveryRecovery);
      // A job of this test's own, asked for after the wake-up below: once Agenda has run it, a delivery run
      // that wake-up asked for would have been handed over too (and the state would say RUNNING).
      let witnessed = false;
      jobs.agenda.define('delivery-runner-test-witness', async () => {
        witnessed = true;
      });
      expect(runner.state).toBe(RunState.IDLE);
      await jobs.agenda.start();
      await runner.start();
      // start() asks Agenda for a run at once; Agenda may already have handed it over.
      expect([RunState.QUEUED, RunState.RUNNING]).toContain(runner.state);

      const first = await emitEvent(plaza, app.id);
      expect((await waitForDelivery(developer, first.id, isFinal, 20_000)).status).toBe('SUCCEEDED');
      // A run keeps watching for work for a while after its last delivery.
      expect(runner.state).toBe(RunState.RUNNING);

      const stopping = runner.stop(5_000);
      expect(runner.state).toBe(RunState.STOPPING);
      await stopping;
      expect(runner.state).toBe(RunState.STOPPED);

      // Stopped: a wake-up neither claims nor asks for a run, so a new delivery waits for another worker.
      const second = await emitEvent(plaza, app.id);
      runner.onDue();
      await jobs.agenda.now('delivery-runner-test-witness', {});
      await vi.waitFor(() => expect(witnessed).toBe(true), { timeout: 10_000, interval: 20 });
      expect(runner.state).toBe(RunState.STOPPED);
      expect((await developer.ok<{ webhookDelivery: { status: string; attemptCount: number } }>(DELIVERY, { id: second.id })).webhookDelivery).toMatchObject({
        status: 'PENDING',
        attemptCount: 0,
      });
      expect(receiver.requests.length).toBe(1);
    } finally {
      await jobs.close();
      await receiver.close();
    }
  });

  it('leaves a run another worker asked for to that worker while its own run goes on, instead of holding it locked for a minute', async () => {
    // Each worker asks for a run on a commit, and any worker may take a run from the shared job store. A worker
    // whose own run is still going (it goes on until the queue has been quiet for a while) can start no other
    // (concurrency 1); were it to lock one all the same, the worker that asked would sit idle until the lock
    // ran out (a minute) while the busy one sent everything. A three-worker fault test saw one worker send nothing.
    const plaza = await startTestPlaza({ RUN_WORKER: 'false' });
    const busy = await createJobRuntime(plaza.services.config, plaza.databaseUrl, 'busy-worker');
    let idle: Awaited<ReturnType<typeof createJobRuntime>> | undefined;
    let releaseBusyRun!: () => void;
    const busyRunGoesOn = new Promise<void>((resolve) => (releaseBusyRun = resolve));
    let busyRuns = 0;
    try {
      defineDeliverWebhooksJob(busy.agenda, async () => {
        busyRuns += 1;
        await busyRunGoesOn;
        return 0;
      });
      await busy.agenda.start();
      await busy.agenda.now(DELIVER_WEBHOOKS_JOB, {});
      await vi.waitFor(() => expect(busyRuns).toBe(1), { timeout: 10_000, interval: 20 });
      // The second worker's request for a run, while the first is busy; then a job of this test's own, which
      // the busy worker runs once it has polled the store since that request: by then, before the fix, it had
      // locked the request too.
      let witnessed = false;
      busy.agenda.define('delivery-runner-test-lock-witness', async () => {
        witnessed = true;
      });
      await busy.agenda.now(DELIVER_WEBHOOKS_JOB, {});
      await busy.agenda.now('delivery-runner-test-lock-witness', {});
      await vi.waitFor(() => expect(witnessed).toBe(true), { timeout: 15_000, interval: 20 });

      idle = await createJobRuntime(plaza.services.config, plaza.databaseUrl, 'idle-worker');
      let idleRuns = 0;
      defineDeliverWebhooksJob(idle.agenda, async () => {
        idleRuns += 1;
        return 0;
      });
      await idle.agenda.start();
      // Well inside the minute a lock held by the busy worker would last.
      await vi.waitFor(() => expect(idleRuns).toBe(1), { timeout: 15_000, interval: 50 });
      expect(busyRuns).toBe(1);
    } finally {
      releaseBusyRun();
      await idle?.close();
      await busy.close();
    }
  });
});
