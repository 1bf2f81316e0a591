import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import { isDatabaseUnavailable, unavailableReason } from '../../../platform/database-unavailable.js';
import { isTestPurchaseId } from '../../../platform/ids.js';
import { logger } from '../../../platform/logger.js';
import type { PlazaMetrics } from '../../../platform/metrics.js';
import { runPrepared } from '../../../platform/prepared-query.js';
import type { PostgresPubSub } from '../../../platform/pubsub.js';
import type { GuardedResponse } from '../../../platform/outbound-http/guarded-http-client.js';
import { deliveryUpdate, publishDeliveryUpdates } from '../delivery-updates.js';
import { type AttemptTrigger, DeliveryStatus } from '../webhook.types.js';
import { HELD_WHILE_PAUSED, WebhookEndpointState } from '../endpoints/webhook-endpoint.types.js';
import { RECORD_LATE_OUTCOMES, recordAttemptsBounds } from './sql-fragments.js';
import { RESULTS_ALREADY_WRITTEN, WRITE_RESULTS, databaseNow, isHeld, type ClaimedDelivery, type UpdatedRow } from './delivery-queries.js';
import { rollUp } from './attempt-rollup.js';
import { attemptEnded, decide, retryDelay, stateOf } from './delivery-lifecycle.js';
import { traceResultsWrite } from './delivery-tracing.js';
import { storedHeaders } from './request-headers.js';

/**
 * SQLSTATEs of a statement PostgreSQL rolled back for another transaction's sake (a deadlock, a serialization
 * failure): nothing of it was written, and run again it goes through.
 */
const ROLLED_BACK_FOR_ANOTHER = new Set(['40P01', '40001']);
/** Waits between tries of a result write that failed for a while: doubling from the first, up to the last. */
const FIRST_RETRY_MS = 25;
const LONGEST_RETRY_MS = 1000;

/** By key, delivery id first: every writer locks the rows of its batch in this one order (see WRITE_RESULTS). */
const byDeliveryAndNumber = (a: { delivery_id: string; number: number }, b: { delivery_id: string; number: number }) =>
  a.delivery_id < b.delivery_id ? -1 : a.delivery_id > b.delivery_id ? 1 : a.number - b.number;

/** One attempt as it ended, before it is written. */
export interface AttemptResult {
  delivery: ClaimedDelivery;
  number: number;
  /** SCHEDULED or MANUAL, as its started row says: the record is inserted whole, in its place (sql-fragments.ts RECORD_ATTEMPTS). */
  trigger: AttemptTrigger;
  startedAt: Date;
  url: string | null;
  headers: Record<string, string> | null;
  response: GuardedResponse;
}

/**
 * One ended attempt as recorded (sql-fragments.ts ATTEMPT_RECORD_COLUMNS): the engine's result write and a manual
 * attempt both build their rows here, so that either stores the very same one.
 */
export function attemptRecord({ delivery, number, trigger, startedAt, url, headers, response }: AttemptResult) {
  return {
    delivery_id: delivery.id,
    number,
    trigger,
    started_at: startedAt.toISOString(),
    duration_ms: response.durationMs,
    status_code: response.statusCode,
    error: response.error,
    excerpt: response.responseBodyExcerpt,
    url,
    headers,
    // Split here, so that the record only compares them with what is stored (request-headers.ts).
    ...storedHeaders(headers, delivery.id, number, startedAt, delivery.event_type),
  };
}

export interface AttemptResultsOptions {
  /** Delays before attempts 2..n, each counted from the end of the previous attempt. */
  retryScheduleMs: number[];
  /** The claim lease a kept delivery gets, in ms. */
  leaseMs: number;
  /** A retry due within this many ms stays claimed by this worker. */
  claimAheadMs: number;
  /** Results written at once when this many are pending. */
  batchSize: number;
  /** Otherwise written after at most this many ms. */
  flushIntervalMs: number;
}

/** What the engine lends the writer: whether near retries may be kept, how to send one, and a wake-up. */
export interface AttemptResultsHooks {
  /** Only while the run claims: a stopped run keeps nothing it would not send. */
  keepsNearRetries(): boolean;
  /** Sends a delivery this worker kept for its near retry. */
  sendKept(delivery: ClaimedDelivery): void;
  /** These results were written (or failed to be): a retry may be due now, and their claims need no renewal. */
  written(results: AttemptResult[]): void;
  /** A run of failures got a delivery that gave up, or ended: the health sweep has news for a developer. */
  healthChanged(): void;
}

/**
 * The results of attempts, written back together: in multi-row statements, at once when a batch is
 * full or a retry is near, else after the flush interval. Moves each delivery on (retry policy from
 * the schedule), counts and logs the finished ones and publishes the live updates.
 */
export class AttemptResults {
  private pending: AttemptResult[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** A write is chained behind the running one and has not started: more results join it. */
  private writeQueued = false;
  /** performance.now() past which a failed write is not tried again (set by a shutdown: its grace's end). */
  private retriesEndAt = Infinity;
  /**
   * The tries waiting now (for a connect, or for an answer), each abandoned when retriesEndAt comes. A set that
   * forgets each try once it settles, not a race against one promise that settles only at shutdown: every race
   * leaves its reaction on that promise, keeping every write's answer for the process's life (the worker grew
   * 64 MiB in a 15-minute soak at 200 deliveries/s).
   */
  private readonly waitingTries = new Set<(err: Error) => void>();
  /** Set when retriesEndAt has come: a try started after it is abandoned at once. */
  private retriesEnded: Error | undefined;
  private retriesEndTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly db: DataSource,
    private readonly pubSub: PostgresPubSub,
    private readonly options: AttemptResultsOptions,
    private readonly hooks: AttemptResultsHooks,
    private readonly metrics?: PlazaMetrics,
  ) {}

  /**
   * Shutting down: a write that fails is tried again only until `deadline` (performance.now()), not for a whole
   * lease. With the database gone, the retries outlived the shutdown grace, and the process manager killed the
   * worker anyway after a stop that seemed to hang. A result not written leaves its delivery claimed: the claim
   * runs out and another worker makes the attempt again (at least once, nothing lost).
   */
  retryUntil(deadline: number): void {
    this.retriesEndAt = Math.min(this.retriesEndAt, deadline);
    // A try that waits is cut there too: with the database unreachable (a host that drops packets, a server that
    // hangs) a connect waits for the pool's connect timeout, and a statement on a connection gone silent for ever.
    clearTimeout(this.retriesEndTimer);
    this.retriesEndTimer = setTimeout(
      () => {
        this.retriesEnded = new Error('the database did not answer before the shutdown grace ended');
        for (const abandon of this.waitingTries) abandon(this.retriesEnded);
        this.waitingTries.clear();
      },
      Math.max(0, this.retriesEndAt - performance.now()),
    ).unref();
  }

  add(result: AttemptResult): void {
    this.pending.push(result);
    // flush() never rejects: a write that fails is logged, and the claims of its deliveries expire and are retried.
    if (this.pending.length >= this.options.batchSize || this.retriesSoon(result)) void this.flush();
    else this.flushTimer ??= setTimeout(() => void this.flush(), this.options.flushIntervalMs);
  }

  /**
   * A failed attempt whose retry is due within a second is written at once rather than with the
   * next batch: its retry can only be claimed once its due time is written.
   */
  private retriesSoon({ delivery, response }: AttemptResult): boolean {
    return response.error !== null && (retryDelay(this.options.retryScheduleMs, delivery.scheduled_attempts_done + 1, delivery.purchase_id) ?? Infinity) <= 1000;
  }

  /**
   * Writes the pending results after the write in progress, if any. At most one write waits behind
   * the running one, and it takes every result pending when it starts: when writes are slower than
   * the flush interval, they grow instead of queueing up (a queue of small writes made every result,
   * and so every retry's due time, later than the one before).
   */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0 || this.writeQueued) return this.flushing;
    this.writeQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.writeQueued = false;
      const results = this.pending.splice(0);
      if (results.length === 0) return;
      try {
        await traceResultsWrite(results, () => this.write(results));
      } catch (err) {
        // Only an error that is not the database's passing state (writeRetried tried again while the claims stood).
        logger.error({ err, count: results.length }, 'delivery results could not be written; their claims will expire and they will be retried');
      } finally {
        // The written results may have set the next due time (a retry); look again now rather than after the idle wait.
        this.hooks.written(results);
      }
    });
    return this.flushing;
  }

  /**
   * Records the attempts' outcomes and moves each delivery on. A retry due within claimAheadMs stays
   * claimed by this worker in the same statement (as a claim ahead would take it) and is sent by a
   * local timer: claiming it back a few milliseconds later would make a short first retry late.
   */
  private async write(results: AttemptResult[]): Promise<void> {
    const keepsNearRetries = this.hooks.keepsNearRetries();
    const rows = results.map((result) => {
      const { delivery, startedAt, response } = result;
      const finishedAt = new Date(startedAt.getTime() + response.durationMs);
      const retryDelayMs = retryDelay(this.options.retryScheduleMs, delivery.scheduled_attempts_done + 1, delivery.purchase_id);
      const event = attemptEnded({
        webhookDisabled: isHeld(delivery),
        bodyKept: delivery.payload !== null,
        succeeded: response.error === null,
        retryDelayMs,
      });
      // The state it was claimed in: WRITE_RESULTS writes only while this run's claim stands, so it is still the row's.
      const { status, nextAttemptAt, recovering, heldReason } = decide(stateOf(delivery), event, {
        at: finishedAt,
        retryDelayMs,
        heldReason: delivery.webhook_state === WebhookEndpointState.PAUSED ? HELD_WHILE_PAUSED : undefined,
      });
      // How long from now the retry is due: startedAt, so finishedAt and nextAttemptAt, are on the database's clock
      // (databaseNow), and WRITE_RESULTS adds this to that clock, never to this worker's.
      const retryInMs = nextAttemptAt === null ? null : Math.round(nextAttemptAt.getTime() - databaseNow(delivery).getTime());
      return {
        // Not a paced endpoint's: its retry goes back through the claim, which books it a slot of the pace.
        keep: keepsNearRetries && retryInMs !== null && retryInMs <= this.options.claimAheadMs && delivery.rate_limit_per_second === null,
        claim_token: delivery.claim_token,
        ...attemptRecord(result),
        status,
        retry_in_ms: retryInMs,
        recovering,
        held_reason: heldReason,
      };
    });
    rows.sort(byDeliveryAndNumber);
    const { hourly, minutely, endpointHourly } = rollUp(
      results.map(({ delivery, startedAt, response }) => ({
        appId: delivery.app_id,
        endpointId: delivery.endpoint_id,
        finishedAt: new Date(startedAt.getTime() + response.durationMs),
        succeeded: response.error === null,
        durationMs: response.durationMs,
      })),
    );
    const updated = await this.writeRetried(JSON.stringify(rows), [this.options.leaseMs, hourly, minutely, endpointHourly, ...recordAttemptsBounds(rows)]);
    // A result whose claim was not this run's any more may be late: its attempt closed as interrupted by a takeover
    // before the write removed its started row. Its outcome replaces that record (sql-fragments.ts RECORD_ATTEMPTS says
    // why in a statement of its own); one recorded above is left as it is.
    const movedOn = new Set(updated.map((row) => row.id));
    const late = rows.filter((row) => !movedOn.has(row.delivery_id));
    if (late.length > 0) {
      // Replacing only an interrupted record, it may run twice: nothing to check after a lost connection.
      await this.retried(
        () => runPrepared(this.pool, 'plaza_deliveries_late_outcomes', RECORD_LATE_OUTCOMES, [JSON.stringify(late), ...recordAttemptsBounds(late)]),
        async () => false,
      );
    }
    const localAt = performance.now();
    const byId = new Map(results.map((r) => [r.delivery.id, r.delivery]));
    if (updated[0]?.health_changed) this.hooks.healthChanged();
    for (const row of updated) {
      if (row.status === DeliveryStatus.SUCCEEDED || row.status === DeliveryStatus.FAILED) this.metrics?.countFinished(row.status);
      // One line per delivery given up on (not per attempt): the endpoint's owner has something to fix.
      if (row.status !== DeliveryStatus.FAILED) continue;
      const delivery = byId.get(row.id)!;
      if (isTestPurchaseId(delivery.purchase_id))
        logger.info({ deliveryId: row.id, appId: delivery.app_id, attempts: row.attempt_count }, 'webhook test event failed: test events are sent once, never retried');
      else logger.info({ deliveryId: row.id, appId: delivery.app_id, attempts: row.attempt_count }, 'webhook delivery failed: no scheduled attempts left');
    }
    // Kept deliveries are this worker's to send, committed above. Their live updates go out first, so a
    // quick retry's own result (SUCCEEDED) can never reach a subscriber before the RETRYING it follows;
    // `finally` still starts them if publishing fails, so they never wait for their lease to expire.
    try {
      await publishDeliveryUpdates(
        this.db.manager,
        this.pubSub,
        updated.map((row) => deliveryUpdate(byId.get(row.id)!, row)),
      );
    } finally {
      for (const row of updated) {
        if (!row.keep) continue;
        const delivery = byId.get(row.id)!;
        // Kept by the write, which set updated_at (as next_attempt_at) on the database's clock.
        const kept = { db_now: row.updated_at, local_at: localAt };
        this.hooks.sendKept({
          ...delivery,
          ...kept,
          status: row.status,
          recovering: row.recovering!,
          attempt_count: row.attempt_count + 1,
          scheduled_attempts_done: delivery.scheduled_attempts_done + 1,
          wait_ms: Math.max(0, row.next_attempt_at!.getTime() - databaseNow(kept).getTime()),
        });
      }
    }
  }

  /**
   * WRITE_RESULTS, tried again while the error is the database's passing state (a deadlock or serialization failure
   * it rolled back, a lost connection, a restart or failover): for up to a lease, while the engine still renews
   * these deliveries' claims (until `written`). Given up, the attempts' outcomes were lost and each delivery sent
   * again once its claim ran out: a second request to the receiver for a write the database refused once.
   * After a lost connection the statement may have committed unseen; it is written again only if its attempts are
   * not recorded as it records them (RESULTS_ALREADY_WRITTEN), so the rollups never count an attempt twice. Then
   * nothing comes back to move on here: what it moved stays moved, a kept retry is claimed again after its lease.
   */
  private writeRetried(rows: string, rest: unknown[]): Promise<UpdatedRow[]> {
    return this.retried(
      () => runPrepared<UpdatedRow>(this.pool, 'plaza_deliveries_write_results', WRITE_RESULTS, [rows, ...rest]),
      async () => (await runPrepared<{ written: boolean }>(this.pool, 'plaza_deliveries_results_written', RESULTS_ALREADY_WRITTEN, [rows]))[0]!.written,
    );
  }

  /** `write`, tried again as writeRetried says; after a try that may have committed unseen, only if `written` says it did not. */
  private async retried<T>(write: () => Promise<T[]>, written: () => Promise<boolean>): Promise<T[]> {
    const since = performance.now();
    let mayHaveCommitted = false;
    for (let tries = 1; ; tries++) {
      try {
        if (mayHaveCommitted && (await this.beforeRetriesEnd(written()))) return [];
        return await this.beforeRetriesEnd(write());
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        const rolledBack = typeof code === 'string' && ROLLED_BACK_FOR_ANOTHER.has(code);
        const until = Math.min(since + this.options.leaseMs, this.retriesEndAt);
        if ((!rolledBack && !isDatabaseUnavailable(err)) || performance.now() >= until) throw err;
        mayHaveCommitted ||= !rolledBack;
        logger.warn(
          { error: rolledBack ? { code, message: (err as Error).message } : unavailableReason(err), tries },
          'delivery results could not be written this time; written again while their claims stand',
        );
        // Never past the end of the retries: one last try there, not a wait beyond it.
        await sleep(Math.max(0, Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (tries - 1), until - performance.now())));
      }
    }
  }

  /** `statement`'s answer, or the end of the retries' error if that comes first (the statement is then left to fail or finish unseen). */
  private beforeRetriesEnd<T>(statement: Promise<T>): Promise<T> {
    // Its own failure once abandoned is nobody's to handle.
    statement.catch(() => undefined);
    if (this.retriesEnded) return Promise.reject(this.retriesEnded);
    return new Promise<T>((resolve, reject) => {
      this.waitingTries.add(reject);
      statement.then(resolve, reject).finally(() => this.waitingTries.delete(reject));
    });
  }
}
