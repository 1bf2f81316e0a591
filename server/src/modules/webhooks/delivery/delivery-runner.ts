import type { JobRuntime } from '../../../platform/jobs.js';
import { logger } from '../../../platform/logger.js';
import { RunState } from '../../../platform/run-state.js';
import { defineDeliverWebhooksJob, DELIVER_WEBHOOKS_JOB } from '../jobs/deliver-webhooks.job.js';
import { defineRecoverDeliveriesJob, RECOVER_DELIVERIES_JOB, RECOVERY_INTERVAL } from '../jobs/recover-deliveries.job.js';
import type { DeliveryEngine } from './delivery-engine.js';
import type { DeliveryRecovery } from './delivery-recovery.js';

// The states every runner of background work shares (platform/run-state.ts); the pre-checks' runner has the same shape.
export { RunState };

/**
 * Wake-ups within this long of asking Agenda for a run do not ask again: QUEUED lasts this long here, and a
 * wake-up after it asks again (the run asked for may have gone to another worker). While IDLE, the next-due timer watches.
 */
const QUEUE_DEBOUNCE_MS = 1000;

/** How long a run keeps watching for work after the last delivery, so bursts and near retries need no new job. */
const IDLE_MS = 10_000;

/**
 * The delivery run's lifecycle in this process, in one place: keeps one run going while work is due
 * (woken by commits through `onDue`, and by a timer set to the next due retry), defines the delivery
 * and recovery jobs, and stops: no more claims, attempts in flight finish or are handed back.
 * The loop itself is DeliveryEngine.run.
 */
export class DeliveryRunner {
  private current = RunState.IDLE;
  private queuedAt = 0;
  private dueTimer: NodeJS.Timeout | undefined;
  /** Settles when the run in progress here has ended (drained); undefined while none runs. */
  private runEnded: Promise<void> | undefined;

  constructor(
    private readonly jobs: JobRuntime,
    private readonly engine: DeliveryEngine,
    recovery: DeliveryRecovery,
    /** The webhook health sweep, run with each recovery pass: time alone can make a failing webhook due for disabling. */
    sweepHealth?: () => Promise<void>,
  ) {
    defineDeliverWebhooksJob(jobs.agenda, (keepAlive) => this.runHere(keepAlive));
    const recover = async () => {
      const recovered = await recovery.recover();
      await sweepHealth?.().catch((err: Error) => logger.error({ err }, 'webhook health sweep failed; the next recovery pass will try again'));
      return recovered;
    };
    defineRecoverDeliveriesJob(jobs.agenda, recover, this.onDue);
  }

  get state(): RunState {
    return this.current;
  }

  private get stopping(): boolean {
    return this.current === RunState.STOPPING || this.current === RunState.STOPPED;
  }

  /** Something may be due (a commit, a recovery pass, the due timer): wake the loop, or ask for a run. */
  readonly onDue = (): void => {
    this.engine.wake();
    if (this.current === RunState.QUEUED && Date.now() - this.queuedAt >= QUEUE_DEBOUNCE_MS) this.current = RunState.IDLE;
    if (this.current !== RunState.IDLE) return;
    this.current = RunState.QUEUED;
    this.queuedAt = Date.now();
    this.jobs.agenda.now(DELIVER_WEBHOOKS_JOB, {}).catch((err: Error) => {
      if (this.current === RunState.QUEUED) this.current = RunState.IDLE;
      logger.error({ err }, 'could not queue a delivery run; the next wake-up will try again');
    });
  };

  async start(): Promise<void> {
    await this.jobs.agenda.every(RECOVERY_INTERVAL, RECOVER_DELIVERIES_JOB);
    this.onDue();
    // Never rejects: a failed read of the queue is logged inside, and it looks again in a second.
    void this.watchNextDue();
  }

  /**
   * Ends the run in this process: no more claims; attempts in flight finish and their results are
   * written, or, those still running after `graceMs`, are handed back to other workers.
   */
  async stop(graceMs: number): Promise<void> {
    this.current = RunState.STOPPING;
    clearTimeout(this.dueTimer);
    // Never rejects: a hand-back that fails is logged, and the claims expire after their lease.
    const deadline = setTimeout(() => void this.engine.handBack(), graceMs);
    // The results' writes too end with the grace: with the database down they would retry for a lease.
    this.engine.writeResultsUntil(performance.now() + graceMs);
    try {
      if (this.runEnded) {
        this.engine.wake();
        await this.runEnded;
      }
      await this.engine.drain();
    } finally {
      clearTimeout(deadline);
      this.current = RunState.STOPPED;
    }
  }

  /** The delivery job's body (one at a time per process): the engine's loop until the queue is quiet or stop() is called. */
  private async runHere(keepAlive: () => Promise<void>): Promise<number> {
    // Taken from Agenda after stop(): nothing to claim; stop() drains what is in flight.
    if (this.stopping) return 0;
    this.current = RunState.RUNNING;
    let ended!: () => void;
    this.runEnded = new Promise((resolve) => (ended = resolve));
    try {
      return await this.engine.run({ idleMs: IDLE_MS, shouldStop: () => this.stopping, keepAlive });
    } finally {
      if (this.current === RunState.RUNNING) this.current = RunState.IDLE;
      this.runEnded = undefined;
      ended();
      // Never rejects (see start()).
      void this.watchNextDue();
    }
  }

  /** While no run is active here, wake up exactly when the next retry falls due (checking at least every second). */
  private async watchNextDue(): Promise<void> {
    clearTimeout(this.dueTimer);
    if (this.stopping) return;
    let ms = 1000;
    try {
      if (this.current !== RunState.RUNNING) ms = await this.engine.msUntilNextDue();
    } catch (err) {
      logger.warn({ err }, 'could not read the delivery queue; trying again in a second');
    }
    if (ms === 0) this.onDue();
    this.dueTimer = setTimeout(() => {
      if (ms > 0 && ms < 1000) this.onDue();
      // Never rejects (see start()).
      void this.watchNextDue();
    }, ms || 1000);
  }
}
