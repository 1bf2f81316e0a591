import type { JobRuntime } from '../../../platform/jobs.js';
import { logger } from '../../../platform/logger.js';
import { RunState } from '../../../platform/run-state.js';
import { defineRunPreChecksJob, defineSweepPreChecksJob, RUN_PRE_CHECKS_JOB, SWEEP_INTERVAL, SWEEP_PRE_CHECKS_JOB } from './pre-checks.job.js';
import type { PreCheckService } from './pre-checks.service.js';

/** Wake-ups closer together than this share one run. */
const QUEUE_DEBOUNCE_MS = 100;

/**
 * The pre-checks' run in this process, in the shape of the deliveries' (webhooks' DeliveryRunner): woken by the
 * submissions' NOTIFY through `onDue` (the job worker LISTENs for both), a run asked of Agenda that claims pending
 * checks (SKIP LOCKED, under a lease) until none is left, a timed sweep for a wake-up that was lost, and stop:
 * no more runs or claims. Unlike a delivery run, a run here does not watch for new work once the queue is empty,
 * so each wake-up asks for a run of its own, on the trailing edge: the run starts after every wake-up it covers,
 * and none is lost to the de-bounce.
 */
export class PreCheckRunner {
  private current = RunState.IDLE;
  private queueTimer: NodeJS.Timeout | undefined;
  /** Runs in progress here: Agenda may give this process a second run while one goes on (the job's default concurrency). */
  private running = 0;

  constructor(
    private readonly jobs: JobRuntime,
    private readonly preChecks: PreCheckService,
  ) {
    defineRunPreChecksJob(jobs.agenda, () => this.runHere());
    defineSweepPreChecksJob(jobs.agenda, () => preChecks.pendingCount(), this.onDue);
  }

  get state(): RunState {
    return this.current;
  }

  private get stopping(): boolean {
    return this.current === RunState.STOPPING || this.current === RunState.STOPPED;
  }

  /** Something may be pending (a submission's commit, the sweep): ask for a run. */
  readonly onDue = (): void => {
    if (this.stopping) return;
    this.queueTimer ??= setTimeout(() => {
      this.queueTimer = undefined;
      if (this.current === RunState.IDLE) this.current = RunState.QUEUED;
      this.jobs.agenda.now(RUN_PRE_CHECKS_JOB, {}).catch((err: Error) => {
        if (this.current === RunState.QUEUED) this.current = RunState.IDLE;
        logger.warn({ err }, 'could not queue review pre-checks; the sweep will');
      });
    }, QUEUE_DEBOUNCE_MS);
  };

  async start(): Promise<void> {
    await this.jobs.agenda.every(SWEEP_INTERVAL, SWEEP_PRE_CHECKS_JOB);
    this.onDue();
  }

  /**
   * No more runs here, and a run in progress claims no more: STOPPING until the checks it holds are done, not waited
   * for (one that does not finish is claimed again by another worker once its lease expires).
   */
  stop(): void {
    clearTimeout(this.queueTimer);
    this.queueTimer = undefined;
    this.current = this.running > 0 ? RunState.STOPPING : RunState.STOPPED;
  }

  /** The run job's body: batches of pending checks until none is claimed or stop() is called. */
  private async runHere(): Promise<number> {
    if (this.stopping) return 0;
    this.current = RunState.RUNNING;
    this.running += 1;
    let ran = 0;
    try {
      for (let batch = await this.preChecks.runDue(); batch > 0; batch = this.stopping ? 0 : await this.preChecks.runDue()) ran += batch;
      return ran;
    } finally {
      this.running -= 1;
      // Read again: stop() may have moved it while the checks ran.
      const now = this.state;
      if (this.running === 0 && now === RunState.RUNNING) this.current = RunState.IDLE;
      if (this.running === 0 && now === RunState.STOPPING) this.current = RunState.STOPPED;
    }
  }
}
