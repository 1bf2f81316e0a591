import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { EncryptionKey } from '../../config.js';
import { logger } from '../../platform/logger.js';
import { queryPrepared } from '../../platform/prepared-query.js';
import type { PostgresPubSub } from '../../platform/pubsub.js';
import { openSecret } from '../../platform/secret-crypto.js';
import type { GuardedHttpClient, GuardedResponse } from '../../platform/outbound-http/guarded-http-client.js';
import { publishDeliveryUpdates, type DeliveryUpdate } from './delivery-updates.js';
import { webhookHeaders } from './webhook-signing.js';
import { DeliveryStatus } from './webhook.types.js';
import type { PlazaMetrics } from '../../platform/metrics.js';

export interface DeliveryEngineOptions {
  /** Delays before attempts 2..n, each counted from the end of the previous attempt. */
  retryScheduleMs: number[];
  /** How long a claim protects a delivery; a dead worker's deliveries are free again after it. @default 45s */
  claimLeaseMs?: number;
  /** Deliveries claimed per round trip. @default 200 */
  batchSize?: number;
  /** Attempts in flight per worker process. @default 512 */
  maxInFlight?: number;
  /** Attempts in flight per app (destination) per worker, so a slow endpoint cannot take every slot. @default 32 */
  maxInFlightPerApp?: number;
  /** Results are written back together after at most this long (or at once when a batch is full). @default 20 ms */
  flushIntervalMs?: number;
  /**
   * After a claim that emptied the queue, the next claim waits at least this long, so deliveries
   * committed meanwhile are claimed together: under load one claim per few milliseconds instead of
   * one per commit, each costing a statement and a commit. Adds at most this much latency. @default 8 ms
   */
  claimIntervalMs?: number;
  /**
   * Deliveries due within this long are claimed now and sent by a local timer at their due time, so
   * a retry starts on time however long the claim statement takes under load. Kept short: a
   * delivery claimed ahead holds one of its app's slots while it waits. @default 50 ms
   */
  claimAheadMs?: number;
}

/** What one claim returns for each delivery: everything needed to send it, without another query. */
interface ClaimedDelivery {
  id: string;
  claim_token: string;
  app_id: string;
  owner_id: string;
  event_type: string;
  purchase_id: string;
  attempt_count: number;
  scheduled_attempts_done: number;
  created_at: Date;
  /** Milliseconds from the claim until the delivery is due (claimed ahead); 0 when already due. */
  wait_ms: number;
  payload: string;
  webhook_url: string | null;
  key_id: string;
  ciphertext: Buffer;
}

/** The delivery's row as an UPDATE ... RETURNING gives it back. */
interface UpdatedRow {
  id: string;
  /** Still claimed by this worker: its retry is due within claimAheadMs. */
  keep?: boolean;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  updated_at: Date;
}

const toUpdate = (delivery: ClaimedDelivery, row: UpdatedRow): DeliveryUpdate => ({
  id: row.id,
  appId: delivery.app_id,
  ownerId: delivery.owner_id,
  eventType: delivery.event_type,
  purchaseId: delivery.purchase_id,
  status: row.status,
  attemptCount: row.attempt_count,
  nextAttemptAt: row.next_attempt_at,
  createdAt: delivery.created_at,
  updatedAt: row.updated_at,
});

interface AttemptResult {
  delivery: ClaimedDelivery;
  number: number;
  startedAt: Date;
  url: string | null;
  headers: Record<string, string> | null;
  response: GuardedResponse;
}

/**
 * What sending a claimed delivery needs besides its row: the body, the current webhook URL and owner,
 * and the sealed secret. The body is read by key for each row, not joined: joined, the planner read
 * the whole events table for a claim once it held some tens of thousands of rows (see the claim).
 */
const ATTEMPT_MATERIALS = (alias: string) => `(SELECT ev.payload FROM webhook_events ev WHERE ev.id = ${alias}.event_id) AS payload, a.webhook_url, a.owner_id, s.key_id, s.ciphertext`;
const JOIN_ATTEMPT_MATERIALS = (alias: string) => `JOIN apps a ON a.id = ${alias}.app_id
         JOIN client_secrets s ON s.app_id = ${alias}.app_id`;

/** Apps whose opened client secret a worker keeps; beyond it the least recently opened is dropped. */
const OPENED_SECRETS_MAX = 10_000;

const INTERRUPTED = 'interrupted: the worker stopped before this attempt finished; the delivery was taken over';

/** The deliveries still to be delivered, as the due index (next_attempt_at) knows them. */
const QUEUED = `status IN ('PENDING', 'RETRYING')`;
/**
 * The same rows as the per-app queue index (app_id, next_attempt_at) knows them: a settled delivery has
 * no next attempt. Written apart from QUEUED so that only that index can serve the per-app statements.
 */
const QUEUED_BY_APP = (alias: string) => `${alias}.next_attempt_at IS NOT NULL AND ${alias}.status NOT IN ('SUCCEEDED', 'FAILED')`;

/** Claimable now (or within $7 ms, claims ahead): due, and not held by a live claim. */
const CLAIMABLE = (alias: string) => `${alias}.next_attempt_at <= clock_timestamp() + $7 * interval '1 millisecond'
            AND (${alias}.claim_expires_at IS NULL OR ${alias}.claim_expires_at < clock_timestamp())`;

/**
 * Claimable deliveries of apps not saturated here ($3), from the due index in time order: stepping over
 * the in-flight rows and the saturated apps' due backlog. `gate` is a condition the whole walk depends
 * on ('' for none), so a statement can hold this walk as the branch it does not take.
 */
const dueInTimeOrder = (gate: string) => `SELECT d.id, d.app_id, d.next_attempt_at FROM webhook_deliveries d
          WHERE ${gate}${QUEUED} AND ${CLAIMABLE('d')}
            AND NOT (d.app_id = ANY($3::text[]))
          ORDER BY d.next_attempt_at
          LIMIT $2 * 4`;

/** While no app is saturated here: time order, where only in-flight rows are stepped over. */
const CANDIDATES_IN_TIME_ORDER = `candidates AS (
         ${dueInTimeOrder('')}
       )`;

/**
 * Up to this many apps with queued deliveries, the claim looks app by app while some app is saturated;
 * beyond it, in time order. Measured with one saturated app: app by app costs about 8 µs per app with
 * queued work (had it no limit: 1,000 apps 9 ms a claim, 10,000 apps 79 ms), in time order about
 * 0.2 µs per row of the saturated apps' due backlog (50,000 rows: 12 ms). With a 50,000-row backlog:
 * 2 ms app by app with 2 apps, 4.5 ms with 100; past the limit, time order plus about 1 ms for the
 * scan that counted the apps.
 */
const PER_APP_MAX_APPS = 200;

/**
 * The apps with queued deliveries, one index probe each (a loose scan of the per-app queue index),
 * stopping one past PER_APP_MAX_APPS; `per_app` says whether they are few enough to look app by app.
 * Shared by the claim and the next-due question while some app is saturated here.
 */
const APPS_WITH_QUEUED_WORK = `apps_with_work AS (
         -- The index's own predicate only, so each step reads the index alone; the status is checked per app below.
         (SELECT q.app_id, 1 AS nth FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL ORDER BY q.app_id LIMIT 1)
         UNION ALL
         SELECT (SELECT q.app_id FROM webhook_deliveries q WHERE q.next_attempt_at IS NOT NULL AND q.app_id > w.app_id ORDER BY q.app_id LIMIT 1), w.nth + 1
           FROM apps_with_work w WHERE w.app_id IS NOT NULL AND w.nth <= ${PER_APP_MAX_APPS}
       ), per_app AS (
         SELECT count(*) <= ${PER_APP_MAX_APPS} AS chosen FROM apps_with_work WHERE app_id IS NOT NULL
       ), open_apps AS (
         SELECT app_id FROM apps_with_work WHERE app_id IS NOT NULL AND NOT (app_id = ANY($3::text[]))
       )`;

/**
 * While some app is saturated here ($3): per app that is not, its earliest claimable deliveries, up to
 * its free slots. In time order the scan would step over every due delivery of the saturated apps,
 * and a dead endpoint's backlog (tens of thousands) made each claim cost tens of milliseconds for all.
 * With more apps than PER_APP_MAX_APPS holding queued work, time order is the cheaper walk again: the
 * branch not chosen is not run (its condition is a one-time filter).
 */
const CANDIDATES_PER_OPEN_APP = `${APPS_WITH_QUEUED_WORK}, candidates AS (
         (SELECT c.id, c.app_id, c.next_attempt_at FROM open_apps o
           CROSS JOIN LATERAL (
             SELECT d.id, d.app_id, d.next_attempt_at FROM webhook_deliveries d
              WHERE d.app_id = o.app_id AND ${QUEUED_BY_APP('d')} AND ${CLAIMABLE('d')}
              ORDER BY d.next_attempt_at
              LIMIT GREATEST(0, $6::int - COALESCE(($5::jsonb ->> o.app_id)::int, 0))
           ) c
          WHERE (SELECT chosen FROM per_app)
          ORDER BY c.next_attempt_at
          LIMIT $2 * 4)
         UNION ALL
         (${dueInTimeOrder('NOT (SELECT chosen FROM per_app) AND ')})
       )`;

/**
 * Claims up to $2 deliveries due within $7 ms, at most $6 in flight per app (in flight now: $5, full
 * apps: $3), leased for $4 ms to claim token $1; records each attempt as started and returns what
 * sending it needs. `candidates` is one of the two ways above of finding them. Exported for the tests
 * that check both plans stay bounded.
 */
const claimStatement = (candidates: string) => `WITH RECURSIVE ${candidates}, within_app_slots AS (
         -- No more per app than its free slots here ($5: in flight per app): one claim over a bulk
         -- backlog would otherwise take a whole batch for one destination, and a few hanging
         -- destinations would hold every slot of the worker until they time out.
         SELECT id, next_attempt_at FROM (
           SELECT id, next_attempt_at, row_number() OVER (PARTITION BY app_id ORDER BY next_attempt_at) AS nth,
                  $6::int - COALESCE(($5::jsonb ->> app_id)::int, 0) AS free
             FROM candidates) ranked
          WHERE nth <= free
          ORDER BY next_attempt_at
          LIMIT $2
       ), due AS (
         -- Each row locked through its primary key, driven by the short list above. A queue's
         -- statistics are always stale (a burst of due rows arrives between two ANALYZEs), and with a
         -- join here the planner, expecting a handful of rows, re-ranked every candidate once per
         -- pending delivery: 300 ms for 200 rows instead of a few.
         SELECT d.id FROM within_app_slots w
           CROSS JOIN LATERAL (
             SELECT d.id FROM webhook_deliveries d
              WHERE d.id = w.id AND d.status IN ('PENDING', 'RETRYING')
                AND (d.claim_expires_at IS NULL OR d.claim_expires_at < clock_timestamp())
              FOR UPDATE SKIP LOCKED
           ) d
       ), interrupted AS (
         -- A scheduled attempt still open on a delivery whose claim expired belongs to a worker that died.
         -- Rows reached by key (= ANY of the locked ids), never by a join: the planner, costing a join
         -- against a few hundred ids, chose to read the whole table once it held some tens of thousands of rows.
         UPDATE webhook_attempts a
            SET finished = true, error = '${INTERRUPTED}',
                duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int
          WHERE a.delivery_id = ANY (ARRAY(SELECT id FROM due)) AND a.trigger = 'SCHEDULED' AND NOT a.finished
       ), claimed AS (
         UPDATE webhook_deliveries d
            SET claim_token = $1, claim_expires_at = clock_timestamp() + $4 * interval '1 millisecond',
                attempt_count = d.attempt_count + 1, updated_at = clock_timestamp()
          WHERE d.id = ANY (ARRAY(SELECT id FROM due))
         RETURNING d.id, d.app_id, d.event_id, d.event_type, d.purchase_id, d.attempt_count, d.scheduled_attempts_done, d.created_at, d.next_attempt_at
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, 'SCHEDULED', GREATEST(clock_timestamp(), next_attempt_at), false FROM claimed
       )
       SELECT c.id, c.app_id, c.event_type, c.purchase_id, c.attempt_count, c.scheduled_attempts_done, c.created_at,
              GREATEST(0, EXTRACT(EPOCH FROM (c.next_attempt_at - clock_timestamp())) * 1000)::float AS wait_ms,
              $1::text AS claim_token, ${ATTEMPT_MATERIALS('c')}
         FROM claimed c
         ${JOIN_ATTEMPT_MATERIALS('c')}`;

export const CLAIM_DUE_DELIVERIES = claimStatement(CANDIDATES_IN_TIME_ORDER);
export const CLAIM_DUE_DELIVERIES_PAST_SATURATED_APPS = claimStatement(CANDIDATES_PER_OPEN_APP);

/** Milliseconds until a delivery of an app not in $1 can be claimed (claims ahead: $2 ms early). */
const untilClaimable = (earliest: string) => `GREATEST(0, EXTRACT(EPOCH FROM (${earliest} - clock_timestamp())) * 1000 - $2)::float AS ms`;

/** The earliest unclaimed delivery of an app not in $1, in time order; `gate` as in dueInTimeOrder. */
const nextInTimeOrder = (gate: string) => `SELECT next_attempt_at FROM webhook_deliveries
        WHERE ${gate}${QUEUED} AND (claim_expires_at IS NULL OR claim_expires_at < now())
          AND NOT (app_id = ANY($1::text[]))
        ORDER BY next_attempt_at LIMIT 1`;

export const NEXT_DUE = `SELECT ${untilClaimable('next_attempt_at')} FROM (${nextInTimeOrder('')}) earliest`;

/** As NEXT_DUE, app by app, so the saturated apps' backlogs are stepped over, not walked ($3 in the shared CTEs is $1 here). */
export const NEXT_DUE_PAST_SATURATED_APPS = `WITH RECURSIVE ${APPS_WITH_QUEUED_WORK.replaceAll('$3', '$1')}, earliest AS (
         (SELECT min(n.next_attempt_at) AS next_attempt_at FROM open_apps o
           CROSS JOIN LATERAL (
             SELECT d.next_attempt_at FROM webhook_deliveries d
              WHERE d.app_id = o.app_id AND ${QUEUED_BY_APP('d')} AND (d.claim_expires_at IS NULL OR d.claim_expires_at < now())
              ORDER BY d.next_attempt_at LIMIT 1
           ) n
          WHERE (SELECT chosen FROM per_app))
         UNION ALL
         (${nextInTimeOrder('NOT (SELECT chosen FROM per_app) AND ')})
       )
       -- No row when nothing is queued, as from NEXT_DUE (GREATEST would turn an empty minimum into 0).
       SELECT ${untilClaimable('next_attempt_at')} FROM earliest WHERE next_attempt_at IS NOT NULL`;

/** Per attempt, so only at debug: a busy worker makes thousands a second. Never the URL or headers (they can carry credentials). */
function logAttempt({ delivery, number, response }: AttemptResult, trigger: 'SCHEDULED' | 'MANUAL'): void {
  if (!logger.isLevelEnabled('debug')) return;
  const outcome = response.error === null ? 'succeeded' : 'failed';
  logger.debug({ deliveryId: delivery.id, appId: delivery.app_id, attempt: number, trigger, outcome, statusCode: response.statusCode, durationMs: response.durationMs, error: response.error ?? undefined }, 'webhook attempt');
}

/**
 * Claims due deliveries in batches, sends them through the guarded HTTP client, and writes the
 * results back in multi-row statements. Several engines (one per worker process) share the queue
 * safely: rows are claimed with SKIP LOCKED under a lease, and a claim that outlives its worker
 * simply expires.
 */
export class DeliveryEngine {
  private readonly lease: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly maxInFlightPerApp: number;
  private readonly flushIntervalMs: number;
  private readonly claimIntervalMs: number;
  private readonly claimAheadMs: number;
  /**
   * Opened client secrets by app, with the sealed form they came from: opening one per attempt cost
   * more than signing. A rotated secret has a new ciphertext, so it is opened again. Process memory
   * only, bounded, never logged.
   */
  private readonly openedSecrets = new Map<string, { keyId: string; ciphertext: Buffer; secret: string }>();
  private readonly inFlightByApp = new Map<string, number>();
  private inFlight = 0;
  /** Claimed deliveries whose attempt has not ended, by id: what a stopping worker hands back. */
  private readonly claimedInFlight = new Map<string, ClaimedDelivery>();
  /** Handed back at shutdown: their late results are dropped, the delivery is another worker's now. */
  private readonly handedBack = new Set<string>();
  private handingBack: Promise<void> = Promise.resolve();
  /** Set by handBack(): a claim that was already under way when the deadline passed is handed back too. */
  private pastDeadline = false;
  private pendingResults: AttemptResult[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** A write is chained behind the running one and has not started: more results join it. */
  private writeQueued = false;
  private wakeUp: (() => void) | undefined;
  /** Between run()'s start and its drain: only then may a written result keep its delivery for a near retry. */
  private running = false;
  /** Set by wake(): something may be due, so the next wait skips asking the database when. */
  private woken = false;

  constructor(
    private readonly db: DataSource,
    private readonly http: GuardedHttpClient,
    private readonly pubSub: PostgresPubSub,
    private readonly encryptionKeys: EncryptionKey[],
    private readonly options: DeliveryEngineOptions,
    private readonly metrics?: PlazaMetrics,
  ) {
    this.lease = options.claimLeaseMs ?? 45_000;
    this.batchSize = options.batchSize ?? 200;
    this.maxInFlight = options.maxInFlight ?? 512;
    this.maxInFlightPerApp = options.maxInFlightPerApp ?? 32;
    this.flushIntervalMs = options.flushIntervalMs ?? 20;
    this.claimIntervalMs = options.claimIntervalMs ?? 8;
    this.claimAheadMs = options.claimAheadMs ?? 50;
  }

  /** Something may be due (a commit, a finished attempt): stop waiting and look. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  get attemptsInFlight(): number {
    return this.inFlight;
  }

  /**
   * The delivery job's body: claim and send until nothing has been due for `idleMs` or `shouldStop`
   * says so, then wait for the attempts in flight and write their results.
   */
  async run({ idleMs, shouldStop, keepAlive }: { idleMs: number; shouldStop: () => boolean; keepAlive: () => Promise<void> }): Promise<number> {
    const claimToken = randomUUID();
    this.running = true;
    let sent = 0;
    let idleSince = Date.now();
    let lastKeepAlive = Date.now();
    while (!shouldStop()) {
      if (Date.now() - lastKeepAlive > 15_000) {
        await keepAlive();
        lastKeepAlive = Date.now();
      }
      const capacity = this.maxInFlight - this.inFlight;
      const claimStarted = Date.now();
      this.woken = false;
      const claimed = capacity > 0 ? await this.claim(claimToken, Math.min(capacity, this.batchSize)) : [];
      for (const delivery of claimed) void this.attempt(delivery);
      sent += claimed.length;
      if (claimed.length > 0) {
        idleSince = Date.now();
        if (claimed.length === Math.min(capacity, this.batchSize)) continue; // more may be due right now
      }
      // The queue is drained: let what is committed in the next few milliseconds gather into one claim.
      await this.sleep(this.claimIntervalMs - (Date.now() - claimStarted));
      if (this.inFlight === 0 && Date.now() - idleSince >= idleMs) break;
      if (this.woken) continue; // a commit or a finished attempt since the claim: look again without asking when
      await this.waitUntil(capacity > 0 ? await this.msUntilNextDue() : 1000);
    }
    this.running = false;
    await this.drain();
    return sent;
  }

  private async sleep(ms: number): Promise<void> {
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  private async waitUntil(ms: number): Promise<void> {
    if (this.woken) return; // woken while the due time was being asked for

    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, ms));
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeUp = undefined;
  }

  /** Apps with as many attempts in flight here as one destination may have: not claimed until one ends. */
  private saturatedApps(): string[] {
    return [...this.inFlightByApp].filter(([, n]) => n >= this.maxInFlightPerApp).map(([app]) => app);
  }

  /**
   * How long until the next delivery this worker could claim can be claimed (claimAheadMs before it
   * is due), at most a second (other processes add work too). Saturated apps are left out as in the
   * claim, or a backlog for one slow destination would look due forever and spin the loop; a
   * finishing attempt wakes it instead.
   */
  async msUntilNextDue(): Promise<number> {
    const saturated = this.saturatedApps();
    const [row] = await queryPrepared<{ ms: number }>(
      this.db.manager,
      saturated.length ? 'plaza_deliveries_next_due_past_saturated_apps' : 'plaza_deliveries_next_due',
      saturated.length ? NEXT_DUE_PAST_SATURATED_APPS : NEXT_DUE,
      [saturated, this.claimAheadMs],
    );
    return row ? Math.min(Number(row.ms), 1000) : 1000;
  }

  private async claim(claimToken: string, limit: number): Promise<ClaimedDelivery[]> {
    const saturated = this.saturatedApps();
    const claimed = await queryPrepared<ClaimedDelivery>(
      this.db.manager,
      saturated.length ? 'plaza_deliveries_claim_past_saturated_apps' : 'plaza_deliveries_claim',
      saturated.length ? CLAIM_DUE_DELIVERIES_PAST_SATURATED_APPS : CLAIM_DUE_DELIVERIES,
      [claimToken, limit, saturated, this.lease, JSON.stringify(Object.fromEntries(this.inFlightByApp)), this.maxInFlightPerApp, this.claimAheadMs],
    );
    this.metrics?.countClaim(claimed.length);
    return claimed;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    this.inFlight += 1;
    this.inFlightByApp.set(delivery.app_id, (this.inFlightByApp.get(delivery.app_id) ?? 0) + 1);
    this.claimedInFlight.set(delivery.id, delivery);
    try {
      if (delivery.wait_ms > 0) {
        // Claimed ahead: its slot is held meanwhile, and a shutdown may hand it back before it is sent.
        await this.sleep(delivery.wait_ms);
        if (this.handedBack.has(delivery.id)) return;
      }
      const result = await this.send(delivery, delivery.attempt_count);
      logAttempt(result, 'SCHEDULED');
      if (this.handedBack.has(delivery.id)) return;
      this.pendingResults.push(result);
      if (this.pendingResults.length >= this.batchSize || this.retriesSoon(result)) void this.flush();
      else this.flushTimer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
    } finally {
      this.claimedInFlight.delete(delivery.id);
      // Only a slot that was full makes claimable work that was not claimable before.
      const freedASlot = this.inFlight === this.maxInFlight || this.inFlightByApp.get(delivery.app_id)! === this.maxInFlightPerApp;
      this.inFlight -= 1;
      const left = this.inFlightByApp.get(delivery.app_id)! - 1;
      if (left === 0) this.inFlightByApp.delete(delivery.app_id);
      else this.inFlightByApp.set(delivery.app_id, left);
      if (freedASlot) this.wake();
    }
  }

  /**
   * A failed attempt whose retry is due within a second is written at once rather than with the
   * next batch: its retry can only be claimed once its due time is written.
   */
  private retriesSoon({ delivery, response }: AttemptResult): boolean {
    return response.error !== null && (this.retryDelayAfter(delivery.scheduled_attempts_done + 1) ?? Infinity) <= 1000;
  }

  /** Signs and sends one attempt. Never throws: every failure becomes part of the attempt's record. */
  async send(delivery: ClaimedDelivery, number: number): Promise<AttemptResult> {
    const startedAt = new Date();
    if (!delivery.webhook_url) {
      return { delivery, number, startedAt, url: null, headers: null, response: { statusCode: null, error: 'the app no longer has a webhook URL', responseBodyExcerpt: null, durationMs: 0 } };
    }
    try {
      const secret = this.clientSecret(delivery);
      const headers = webhookHeaders({ deliveryId: delivery.id, eventName: delivery.event_type, attemptNumber: number, body: delivery.payload, clientSecret: secret, now: startedAt });
      const response = await this.http.post(delivery.webhook_url, headers, delivery.payload, delivery.app_id);
      this.metrics?.observeAttempt(response.durationMs, response.error === null);
      return { delivery, number, startedAt, url: delivery.webhook_url, headers, response };
    } catch (err) {
      logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be prepared');
      return { delivery, number, startedAt, url: delivery.webhook_url, headers: null, response: { statusCode: null, error: 'internal error preparing the request; it has been logged', responseBodyExcerpt: null, durationMs: 0 } };
    }
  }

  private clientSecret({ app_id: appId, key_id: keyId, ciphertext }: ClaimedDelivery): string {
    const cached = this.openedSecrets.get(appId);
    if (cached && cached.keyId === keyId && cached.ciphertext.equals(ciphertext)) return cached.secret;
    const secret = openSecret({ keyId, ciphertext }, appId, this.encryptionKeys);
    if (this.openedSecrets.size >= OPENED_SECRETS_MAX) this.openedSecrets.delete(this.openedSecrets.keys().next().value!);
    this.openedSecrets.delete(appId); // re-inserted last: the Map's order makes the first key the least recently opened
    this.openedSecrets.set(appId, { keyId, ciphertext, secret });
    return secret;
  }

  /** The wait before the next attempt once `scheduledAttemptsDone` scheduled attempts have failed; undefined when none is left. */
  private retryDelayAfter(scheduledAttemptsDone: number): number | undefined {
    return this.options.retryScheduleMs[scheduledAttemptsDone - 1];
  }

  /** Where a delivery goes after a scheduled attempt: done, failed for good, or due again after the next delay. */
  nextState(scheduledAttemptsDone: number, succeeded: boolean, finishedAt: Date): { status: DeliveryStatus; nextAttemptAt: Date | null } {
    if (succeeded) return { status: DeliveryStatus.SUCCEEDED, nextAttemptAt: null };
    const delay = this.retryDelayAfter(scheduledAttemptsDone);
    if (delay === undefined) return { status: DeliveryStatus.FAILED, nextAttemptAt: null };
    return { status: DeliveryStatus.RETRYING, nextAttemptAt: new Date(finishedAt.getTime() + delay) };
  }

  /**
   * Writes the pending results after the write in progress, if any. At most one write waits behind
   * the running one, and it takes every result pending when it starts: when writes are slower than
   * the flush interval, they grow instead of queueing up (a queue of small writes made every result,
   * and so every retry's due time, later than the one before).
   */
  private flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pendingResults.length === 0 || this.writeQueued) return this.flushing;
    this.writeQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.writeQueued = false;
      const results = this.pendingResults.splice(0);
      if (results.length === 0) return;
      try {
        await this.write(results);
      } catch (err) {
        logger.error({ err, count: results.length }, 'delivery results could not be written; their claims will expire and they will be retried');
      } finally {
        // The written results may have set the next due time (a retry); look again now rather than after the idle wait.
        this.wake();
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
    const keepRetriesDueBefore = this.running ? Date.now() + this.claimAheadMs : -Infinity;
    const rows = results.map(({ delivery, number, startedAt, url, headers, response }) => {
      const finishedAt = new Date(startedAt.getTime() + response.durationMs);
      const { status, nextAttemptAt } = this.nextState(delivery.scheduled_attempts_done + 1, response.error === null, finishedAt);
      return {
        keep: nextAttemptAt !== null && nextAttemptAt.getTime() <= keepRetriesDueBefore,
        delivery_id: delivery.id,
        claim_token: delivery.claim_token,
        number,
        started_at: startedAt.toISOString(),
        duration_ms: response.durationMs,
        status_code: response.statusCode,
        error: response.error,
        excerpt: response.responseBodyExcerpt,
        url,
        headers,
        status,
        next_attempt_at: nextAttemptAt?.toISOString() ?? null,
      };
    });
    const updated = await queryPrepared<UpdatedRow>(
      this.db.manager,
      'plaza_deliveries_write_results',
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(keep boolean, delivery_id text, claim_token text, number int, started_at timestamptz, duration_ms int, status_code int,
                error text, excerpt text, url text, headers jsonb, status text, next_attempt_at timestamptz)
       ), attempts AS (
         UPDATE webhook_attempts a
            SET started_at = r.started_at, duration_ms = r.duration_ms, status_code = r.status_code, error = r.error,
                response_body_excerpt = r.excerpt, url = r.url, request_headers = r.headers, finished = true
           FROM r WHERE a.delivery_id = r.delivery_id AND a.number = r.number
       ), moved_on AS (
         UPDATE webhook_deliveries d
            SET status = r.status, next_attempt_at = r.next_attempt_at, scheduled_attempts_done = d.scheduled_attempts_done + 1,
                claim_token = CASE WHEN r.keep THEN d.claim_token END,
                claim_expires_at = CASE WHEN r.keep THEN clock_timestamp() + $2 * interval '1 millisecond' END,
                attempt_count = d.attempt_count + CASE WHEN r.keep THEN 1 ELSE 0 END,
                updated_at = clock_timestamp()
           FROM r
          -- Only while this run still holds the claim: after a takeover the new holder's outcome stands.
          WHERE d.id = r.delivery_id AND d.claim_token = r.claim_token AND d.status IN ('PENDING', 'RETRYING')
          RETURNING d.id, d.status, d.attempt_count, d.next_attempt_at, d.updated_at, r.keep
       ), kept AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, 'SCHEDULED', next_attempt_at, false FROM moved_on WHERE keep
       )
       -- A kept delivery is shown with the attempts made so far, as after any claim: the next one has not started.
       SELECT id, status, attempt_count - CASE WHEN keep THEN 1 ELSE 0 END AS attempt_count, next_attempt_at, updated_at, keep FROM moved_on`,
      [JSON.stringify(rows), this.lease],
    );
    const byId = new Map(results.map((r) => [r.delivery.id, r.delivery]));
    for (const row of updated) {
      if (row.status === DeliveryStatus.SUCCEEDED || row.status === DeliveryStatus.FAILED) this.metrics?.countFinished(row.status);
      // One line per delivery given up on (not per attempt): the endpoint's owner has something to fix.
      if (row.status === DeliveryStatus.FAILED) logger.info({ deliveryId: row.id, appId: byId.get(row.id)!.app_id, attempts: row.attempt_count }, 'webhook delivery failed: no scheduled attempts left');
    }
    // Kept deliveries are this worker's to send, committed above: started before the live updates are
    // published, so a failure to publish cannot leave them waiting for their lease to expire.
    for (const row of updated) {
      if (!row.keep) continue;
      const delivery = byId.get(row.id)!;
      void this.attempt({
        ...delivery,
        attempt_count: row.attempt_count + 1,
        scheduled_attempts_done: delivery.scheduled_attempts_done + 1,
        wait_ms: Math.max(0, row.next_attempt_at!.getTime() - Date.now()),
      });
    }
    await publishDeliveryUpdates(this.db.manager, this.pubSub, updated.map((row) => toUpdate(byId.get(row.id)!, row)));
  }

  /**
   * One immediate MANUAL attempt (redeliverWebhook). Success settles the delivery; failure leaves
   * its status and schedule as they were (decisions.md: a manual redelivery starts no new schedule).
   */
  async redeliver(deliveryId: string): Promise<DeliveryUpdate> {
    const [delivery]: ClaimedDelivery[] = await this.db.query(
      `WITH reserved AS (
         UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, updated_at = clock_timestamp()
          WHERE id = $1
         RETURNING id, app_id, event_id, event_type, purchase_id, attempt_count, scheduled_attempts_done, created_at
       ), started AS (
         INSERT INTO webhook_attempts (delivery_id, number, trigger, started_at, finished)
         SELECT id, attempt_count, 'MANUAL', clock_timestamp(), false FROM reserved
       )
       SELECT r.*, 0::float AS wait_ms, '' AS claim_token, ${ATTEMPT_MATERIALS('r')}
         FROM reserved r
         ${JOIN_ATTEMPT_MATERIALS('r')}`,
      [deliveryId],
    );
    const result = await this.send(delivery, delivery.attempt_count);
    logAttempt(result, 'MANUAL');
    const { number, startedAt, url, headers, response } = result;
    const [[row]] = await this.db.transaction(async (manager) => {
      await manager.query(
        `UPDATE webhook_attempts SET started_at = $3, duration_ms = $4, status_code = $5, error = $6, response_body_excerpt = $7, url = $8, request_headers = $9, finished = true
          WHERE delivery_id = $1 AND number = $2`,
        [deliveryId, number, startedAt, response.durationMs, response.statusCode, response.error, response.responseBodyExcerpt, url, headers],
      );
      return manager.query(
        `UPDATE webhook_deliveries
            SET status = CASE WHEN $2 THEN 'SUCCEEDED' ELSE status END,
                next_attempt_at = CASE WHEN $2 THEN NULL ELSE next_attempt_at END,
                updated_at = clock_timestamp()
          WHERE id = $1
         RETURNING id, status, attempt_count, next_attempt_at, updated_at`,
        [deliveryId, response.error === null],
      );
    });
    const update = toUpdate(delivery, row);
    await publishDeliveryUpdates(this.db.manager, this.pubSub, [update]);
    return update;
  }

  /**
   * The recovery pass: closes attempts left open by a process that died (their claim or request is
   * long gone) so the log tells the truth, and says whether deliveries are due with no one on them.
   */
  async recover(): Promise<{ closedAttempts: number; dueDeliveries: number }> {
    const closed = await this.db.query(
      `UPDATE webhook_attempts a SET finished = true, error = '${INTERRUPTED}',
              duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int
        WHERE NOT a.finished AND a.started_at < clock_timestamp() - $1 * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id AND d.claim_expires_at > clock_timestamp())`,
      [this.lease],
    );
    const [{ due }] = await this.db.query(
      `SELECT count(*)::int AS due FROM (
         SELECT 1 FROM webhook_deliveries
          WHERE status IN ('PENDING', 'RETRYING') AND next_attempt_at <= clock_timestamp()
            AND (claim_expires_at IS NULL OR claim_expires_at < clock_timestamp())
          LIMIT 1000) due_now`,
    );
    return { closedAttempts: closed[1] ?? 0, dueDeliveries: due };
  }

  /** Waits for every attempt in flight (or its hand-back) and writes all results; used on job end and shutdown. */
  async drain(): Promise<void> {
    do {
      while (this.claimedInFlight.size > 0) {
        if (this.pastDeadline) void this.releaseInFlight();
        await new Promise((r) => setTimeout(r, 5));
      }
      await this.handingBack;
      await this.flush();
      // A write that began before the run stopped may have kept deliveries for near retries: send those too.
    } while (this.claimedInFlight.size > 0);
  }

  /**
   * Shutdown past its deadline: releases the claims of deliveries whose attempts are still in flight
   * and closes those attempts as interrupted, so another worker sends them now instead of after the
   * lease. Their late results are dropped; the receiver may see the delivery twice (at least once).
   */
  handBack(): Promise<void> {
    this.pastDeadline = true;
    return this.releaseInFlight();
  }

  private releaseInFlight(): Promise<void> {
    const held = [...this.claimedInFlight.values()];
    if (held.length === 0) return this.handingBack;
    for (const delivery of held) {
      this.handedBack.add(delivery.id);
      this.claimedInFlight.delete(delivery.id);
    }
    const claims = held.map((d) => ({ id: d.id, claim_token: d.claim_token, number: d.attempt_count }));
    const release = () =>
      this.db.query(
        `WITH held AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, claim_token text, number int)
         ), released AS (
           UPDATE webhook_deliveries d SET claim_token = NULL, claim_expires_at = NULL, updated_at = clock_timestamp()
             FROM held WHERE d.id = held.id AND d.claim_token = held.claim_token
           RETURNING d.id, held.number
         )
         UPDATE webhook_attempts a SET finished = true, error = '${INTERRUPTED}',
                duration_ms = GREATEST(0, EXTRACT(EPOCH FROM (clock_timestamp() - a.started_at)) * 1000)::int
           FROM released WHERE a.delivery_id = released.id AND a.number = released.number AND NOT a.finished`,
        [JSON.stringify(claims)],
      );
    this.handingBack = this.handingBack
      .then(release)
      .then(
        () => logger.warn({ deliveries: held.length }, 'shutdown deadline passed: handed back the deliveries whose attempts were still in flight'),
        // Not fatal: their claims expire after the lease and another worker takes them then.
        (err) => logger.error({ err, deliveries: held.length }, 'could not hand back deliveries at shutdown; their claims will expire'),
      );
    return this.handingBack;
  }
}
