import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import type { EncryptionKey } from '../../../config.js';
import { logger } from '../../../platform/logger.js';
import type { PlazaMetrics } from '../../../platform/metrics.js';
import { runPrepared } from '../../../platform/prepared-query.js';
import type { PostgresPubSub } from '../../../platform/pubsub.js';
import type { GuardedHttpClient } from '../../../platform/outbound-http/guarded-http-client.js';
import { isTestPurchaseId } from '../../../platform/ids.js';
import { webhookHeaders } from '../webhook-signing.js';
import { AttemptTrigger, BODY_NOT_KEPT } from '../webhook.types.js';
import { WebhookEndpointState } from '../endpoints/webhook-endpoint.types.js';
import { AttemptResults, type AttemptResult } from './attempt-results.js';
import { ATTEMPT_TRIGGER, stateOf } from './delivery-lifecycle.js';
import {
  CLAIM_DUE_DELIVERIES,
  CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS,
  HAND_BACK,
  NEXT_DUE,
  NEXT_DUE_PAST_SATURATED_ENDPOINTS,
  RENEW_CLAIMS,
  databaseNow,
  isHeld,
  queueOf,
  type ClaimedDelivery,
} from './delivery-queries.js';
import { SigningSecrets } from './opened-secrets.js';
import { traceAttempt, traceClaim, traceHandBack } from './delivery-tracing.js';

export interface DeliveryEngineOptions {
  /** Delays before attempts 2..n, each counted from the end of the previous attempt. */
  retryScheduleMs: number[];
  /** How long a claim protects a delivery; a dead worker's deliveries are free again after it. @default 45s */
  claimLeaseMs?: number;
  /** Deliveries claimed per round trip. @default 200 */
  batchSize?: number;
  /** Attempts in flight per worker process. @default 512 */
  maxInFlight?: number;
  /** Attempts in flight per endpoint (destination) per worker, so a slow endpoint cannot take every slot, nor its app's other endpoints'. @default 32 */
  maxInFlightPerEndpoint?: number;
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
   * delivery claimed ahead holds one of its endpoint's slots while it waits. @default 50 ms
   */
  claimAheadMs?: number;
  /** Called when a result write changed an app's run of failures in a way the health sweep reports on. */
  onHealthChanged?: () => void;
}

/**
 * A paced endpoint's window: a second and a tenth. The limit is what the receiver sees, and a request sent on time
 * can arrive a little late (a busy machine, the network) while the next arrives on time: the tenth keeps such a
 * pair within the limit, for 9% of the pace.
 */
const PACE_WINDOW_MS = 1100;

/** Per attempt, so only at debug: a busy worker makes thousands a second. Never the URL or headers (they can carry credentials). */
function logAttempt({ delivery, number, response, trigger }: AttemptResult): void {
  if (!logger.isLevelEnabled('debug')) return;
  const outcome = response.error === null ? 'succeeded' : 'failed';
  logger.debug(
    {
      deliveryId: delivery.id,
      appId: delivery.app_id,
      attempt: number,
      trigger,
      outcome,
      statusCode: response.statusCode,
      durationMs: response.durationMs,
      error: response.error ?? undefined,
    },
    'webhook attempt',
  );
}

/**
 * Claims due deliveries in batches and sends them through the guarded HTTP client; their results go
 * to AttemptResults, which writes them back in multi-row statements. Several engines (one per worker
 * process) share the queue safely: rows are claimed with SKIP LOCKED under a lease, and a claim that
 * outlives its worker simply expires. When a run starts and stops is DeliveryRunner's to decide.
 */
export class DeliveryEngine {
  /** How long a claim protects a delivery, in ms. */
  readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly maxInFlightPerEndpoint: number;
  private readonly claimIntervalMs: number;
  private readonly claimAheadMs: number;
  private readonly secrets: SigningSecrets;
  private readonly results: AttemptResults;
  private readonly inFlightByEndpoint = new Map<string, number>();
  /** Paced endpoints' deliveries claimed here and waiting for their booked send time, by endpoint. */
  private readonly pacedWaiting = new Map<string, number>();
  /** When this worker last sent to each paced endpoint (performance.now(), oldest first): at most its pace in a PACE_WINDOW_MS. */
  private readonly pacedSends = new LRUCache<string, number[]>({ max: 10_000 });
  private inFlight = 0;
  /** Claimed deliveries whose attempt has not ended, by id: what a stopping worker hands back. */
  private readonly claimedInFlight = new Map<string, ClaimedDelivery>();
  /**
   * Deliveries claimed here whose result is not written yet, with the attempt's number: their claims are renewed
   * (renewClaims) until it is. A kept retry's next attempt replaces its entry, so the older result's write leaves it.
   */
  private readonly unwritten = new Map<string, { claim_token: string; number: number }>();
  private renewing = false;
  /** Handed back at shutdown: their late results are dropped, the delivery is another worker's now. */
  private readonly handedBack = new Set<string>();
  private handingBack: Promise<void> = Promise.resolve();
  /** Set by handBack(): a claim that was already under way when the deadline passed is handed back too. */
  private pastDeadline = false;
  private wakeUp: (() => void) | undefined;
  /** Between run()'s start and its drain (the loop claims): only then may a written result keep its delivery for a near retry. */
  private claiming = false;
  /** Set by wake(): something may be due, so the next wait skips asking the database when. */
  private woken = false;

  constructor(
    private readonly pool: pg.Pool,
    db: DataSource,
    private readonly http: GuardedHttpClient,
    pubSub: PostgresPubSub,
    encryptionKeys: EncryptionKey[],
    options: DeliveryEngineOptions,
    private readonly metrics?: PlazaMetrics,
  ) {
    this.leaseMs = options.claimLeaseMs ?? 45_000;
    this.batchSize = options.batchSize ?? 200;
    this.maxInFlight = options.maxInFlight ?? 512;
    this.maxInFlightPerEndpoint = options.maxInFlightPerEndpoint ?? 32;
    this.claimIntervalMs = options.claimIntervalMs ?? 8;
    this.claimAheadMs = options.claimAheadMs ?? 50;
    this.secrets = new SigningSecrets(encryptionKeys);
    this.results = new AttemptResults(
      pool,
      db,
      pubSub,
      {
        retryScheduleMs: options.retryScheduleMs,
        leaseMs: this.leaseMs,
        claimAheadMs: this.claimAheadMs,
        batchSize: this.batchSize,
        flushIntervalMs: options.flushIntervalMs ?? 20,
      },
      {
        keepsNearRetries: () => this.claiming,
        // Never rejects: send() makes every failure part of the attempt's record.
        sendKept: (delivery) => void this.attempt(delivery),
        written: (results) => {
          for (const { delivery, number } of results) if (this.unwritten.get(delivery.id)?.number === number) this.unwritten.delete(delivery.id);
          this.wake();
        },
        healthChanged: () => options.onHealthChanged?.(),
      },
      metrics,
    );
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
   * The loop of one run (DeliveryRunner starts it as the delivery job's body): claim and send until
   * nothing has been due for `idleMs` or `shouldStop` says so, then wait for the attempts in flight
   * and write their results.
   */
  async run({ idleMs, shouldStop, keepAlive }: { idleMs: number; shouldStop: () => boolean; keepAlive: () => Promise<void> }): Promise<number> {
    const claimToken = randomUUID();
    this.claiming = true;
    // While this run holds claims, they are renewed a few times per lease: a live worker's claim must not run out
    // while a busy machine slows its attempt or its result's write, or another worker sends the delivery again
    // (seen with a 4 s lease and a 3 s WEBHOOK_TIMEOUT beside CPU burners: a delivery sent twice, both 200).
    // A dead or stuck worker renews nothing, and its claims expire after the lease as before.
    // Never rejects: a failed renewal is logged and the next one tries again.
    const renewal = setInterval(() => void this.renewClaims(), Math.max(250, this.leaseMs / 4));
    try {
      return await this.claimAndSend(claimToken, idleMs, shouldStop, keepAlive);
    } finally {
      clearInterval(renewal);
    }
  }

  private async claimAndSend(claimToken: string, idleMs: number, shouldStop: () => boolean, keepAlive: () => Promise<void>): Promise<number> {
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
      // Not awaited: the attempts run side by side, and drain() waits for them. Never rejects (see sendKept).
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
    this.claiming = false;
    await this.drain();
    return sent;
  }

  /** Renews the claims of the deliveries whose results are not written yet (one statement; skipped while the last runs). */
  private async renewClaims(): Promise<void> {
    if (this.unwritten.size === 0 || this.renewing) return;
    this.renewing = true;
    const held = [...this.unwritten].map(([id, { claim_token }]) => ({ id, claim_token }));
    try {
      await runPrepared(this.pool, 'plaza_deliveries_renew_claims', RENEW_CLAIMS, [JSON.stringify(held), this.leaseMs]);
    } catch (err) {
      logger.warn({ err, deliveries: held.length }, 'could not renew delivery claims; the next renewal tries again before they expire');
    } finally {
      this.renewing = false;
    }
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

  /** Endpoints with as many attempts in flight here as one destination may have: not claimed until one ends. */
  private saturatedEndpoints(): string[] {
    const full = [...this.inFlightByEndpoint].filter(([, n]) => n >= this.maxInFlightPerEndpoint).map(([endpoint]) => endpoint);
    // A paced endpoint whose booked slots here are not all sent yet is claimed again only once they are: each claim
    // books at most a second of its pace, so a backlog is booked a second at a time instead of slots far ahead.
    return [...full, ...[...this.pacedWaiting.keys()].filter((endpoint) => !full.includes(endpoint))];
  }

  /**
   * How long until the next delivery this worker could claim can be claimed (claimAheadMs before it
   * is due), at most a second (other processes add work too). Saturated endpoints are left out as in the
   * claim, or a backlog for one slow destination would look due forever and spin the loop; a
   * finishing attempt wakes it instead.
   */
  async msUntilNextDue(): Promise<number> {
    const saturated = this.saturatedEndpoints();
    const [row] = await runPrepared<{ ms: number }>(
      this.pool,
      saturated.length ? 'plaza_deliveries_next_due_past_saturated_endpoints' : 'plaza_deliveries_next_due',
      saturated.length ? NEXT_DUE_PAST_SATURATED_ENDPOINTS : NEXT_DUE,
      [saturated, this.claimAheadMs],
    );
    return row ? Math.min(Number(row.ms), 1000) : 1000;
  }

  private async claim(claimToken: string, limit: number): Promise<ClaimedDelivery[]> {
    const saturated = this.saturatedEndpoints();
    const [statement, text] = saturated.length
      ? ['plaza_deliveries_claim_past_saturated_endpoints', CLAIM_DUE_DELIVERIES_PAST_SATURATED_ENDPOINTS]
      : ['plaza_deliveries_claim', CLAIM_DUE_DELIVERIES];
    const startedAt = Date.now();
    const claimed = await runPrepared<ClaimedDelivery>(this.pool, statement, text, [
      claimToken,
      limit,
      saturated,
      this.leaseMs,
      JSON.stringify(Object.fromEntries(this.inFlightByEndpoint)),
      this.maxInFlightPerEndpoint,
      this.claimAheadMs,
    ]);
    const localAt = performance.now();
    for (const delivery of claimed) delivery.local_at = localAt;
    traceClaim(claimed, startedAt, statement);
    this.metrics?.countClaim(claimed.length);
    return claimed;
  }

  /**
   * Waits until sending one more request to a paced endpoint keeps it within `perSecond` in any second, by this
   * worker's own sends: the booked slots are 1/N s apart, but a send made late (a busy event loop) followed by one on
   * time would otherwise put N + 1 in a second. The window is PACE_WINDOW_MS, a little over a second (why there).
   */
  private async keepPace(endpoint: string, perSecond: number): Promise<void> {
    const recent = this.pacedSends.get(endpoint) ?? [];
    this.pacedSends.set(endpoint, recent);
    for (;;) {
      const now = performance.now();
      while (recent.length > 0 && recent[0]! <= now - PACE_WINDOW_MS) recent.shift();
      if (recent.length < perSecond) {
        recent.push(now);
        return;
      }
      await this.sleep(recent[0]! + PACE_WINDOW_MS - now);
    }
  }

  /** One of a paced endpoint's booked slots here came (or was given up): once none waits, the endpoint may be claimed again. */
  private sentPacedSlot(endpoint: string): void {
    const left = this.pacedWaiting.get(endpoint)! - 1;
    if (left > 0) {
      this.pacedWaiting.set(endpoint, left);
      return;
    }
    this.pacedWaiting.delete(endpoint);
    this.wake();
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    this.inFlight += 1;
    const endpoint = queueOf(delivery);
    this.inFlightByEndpoint.set(endpoint, (this.inFlightByEndpoint.get(endpoint) ?? 0) + 1);
    this.claimedInFlight.set(delivery.id, delivery);
    this.unwritten.set(delivery.id, { claim_token: delivery.claim_token, number: delivery.attempt_count });
    let paced = delivery.rate_limit_per_second !== null;
    if (paced) this.pacedWaiting.set(endpoint, (this.pacedWaiting.get(endpoint) ?? 0) + 1);
    try {
      if (delivery.wait_ms > 0) {
        // Claimed ahead, or waiting for its slot of the endpoint's pace: its slot is held meanwhile, and a shutdown may hand it back before it is sent.
        await this.sleep(delivery.wait_ms);
        if (this.handedBack.has(delivery.id)) return;
      }
      if (paced) await this.keepPace(endpoint, delivery.rate_limit_per_second!);
      if (this.handedBack.has(delivery.id)) return;
      if (paced) this.sentPacedSlot(endpoint);
      paced = false;
      const result = await this.send(delivery, delivery.attempt_count, ATTEMPT_TRIGGER[stateOf(delivery)]!);
      if (this.handedBack.has(delivery.id)) return;
      this.results.add(result);
    } finally {
      // Handed back before its slot came: the slot goes unused.
      if (paced) this.sentPacedSlot(endpoint);
      this.claimedInFlight.delete(delivery.id);
      // Only a slot that was full makes claimable work that was not claimable before.
      const freedASlot = this.inFlight === this.maxInFlight || this.inFlightByEndpoint.get(endpoint)! === this.maxInFlightPerEndpoint;
      this.inFlight -= 1;
      const left = this.inFlightByEndpoint.get(endpoint)! - 1;
      if (left === 0) this.inFlightByEndpoint.delete(endpoint);
      else this.inFlightByEndpoint.set(endpoint, left);
      if (freedASlot) this.wake();
    }
  }

  /**
   * Signs and sends one attempt (scheduled, or a manual one for the log service's redeliver). Never
   * throws: every failure becomes part of the attempt's record.
   */
  async send(delivery: ClaimedDelivery, number: number, trigger: AttemptTrigger): Promise<AttemptResult> {
    const result: AttemptResult = { ...(await this.post(delivery, number)), trigger };
    logAttempt(result);
    return result;
  }

  private async post(delivery: ClaimedDelivery, number: number): Promise<Omit<AttemptResult, 'trigger'>> {
    // On the database's clock, as is all that the attempt's time decides: its record, webhook-timestamp, its retry.
    const startedAt = databaseNow(delivery);
    // Claimed as its endpoint was paused or disabled: held, nothing is sent (a redelivery is refused before this).
    if (isHeld(delivery)) {
      const why =
        delivery.webhook_state === WebhookEndpointState.PAUSED
          ? 'not sent: its endpoint is paused; resume it, then recover failed deliveries'
          : 'not sent: its endpoint is disabled after sustained failures; enable it, then recover failed deliveries';
      return { delivery, number, startedAt, url: null, headers: null, response: { statusCode: null, error: why, responseBodyExcerpt: null, durationMs: 0 } };
    }
    // Never sent without its body (an empty POST would look delivered): its attempt records why, and it ends FAILED.
    if (delivery.payload === null) {
      return { delivery, number, startedAt, url: null, headers: null, response: { statusCode: null, error: BODY_NOT_KEPT, responseBodyExcerpt: null, durationMs: 0 } };
    }
    if (!delivery.webhook_url) {
      return {
        delivery,
        number,
        startedAt,
        url: null,
        headers: null,
        response: { statusCode: null, error: 'not sent: its endpoint was deleted', responseBodyExcerpt: null, durationMs: 0 },
      };
    }
    try {
      // The replaced secret too while a rotation's overlap runs when the attempt starts (a claim ahead may outlive it).
      const { secret, previousSecret } = this.secrets.open(delivery.app_id, delivery, startedAt);
      const headers = webhookHeaders({
        deliveryId: delivery.id,
        eventName: delivery.event_type,
        attemptNumber: number,
        body: delivery.payload,
        clientSecret: secret,
        previousSecret,
        now: startedAt,
      });
      // A developer's test event (sendTestWebhook) says so, beside a payload of exactly the seven fields.
      if (isTestPurchaseId(delivery.purchase_id)) headers['x-platform-test'] = 'true';
      // Connections pooled per endpoint: one hanging destination cannot hold the sockets another endpoint of its app needs.
      const url = delivery.webhook_url;
      const payload = delivery.payload;
      // In the attempt's span when tracing, which adds `traceparent` to what is sent (not to `headers`, the record's).
      const response = await traceAttempt(delivery, number, url, headers, (sent) => this.http.post(url, sent, payload, queueOf(delivery)));
      this.metrics?.observeAttempt(response.durationMs, response.error === null);
      return { delivery, number, startedAt, url: delivery.webhook_url, headers, response };
    } catch (err) {
      logger.error({ err, deliveryId: delivery.id }, 'webhook attempt could not be prepared');
      return {
        delivery,
        number,
        startedAt,
        url: delivery.webhook_url,
        headers: null,
        response: { statusCode: null, error: 'internal error preparing the request; it has been logged', responseBodyExcerpt: null, durationMs: 0 },
      };
    }
  }

  /** Shutting down: results that cannot be written by `deadline` (performance.now()) are left to their claims' expiry (AttemptResults.retryUntil). */
  writeResultsUntil(deadline: number): void {
    this.results.retryUntil(deadline);
  }

  /** Waits for every attempt in flight (or its hand-back) and writes all results; used on job end and shutdown. */
  async drain(): Promise<void> {
    do {
      while (this.claimedInFlight.size > 0) {
        // Never rejects: a failed hand-back is logged; the loop waits for the same promise below.
        if (this.pastDeadline) void this.releaseInFlight();
        await new Promise((r) => setTimeout(r, 5));
      }
      await this.handingBack;
      await this.results.flush();
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
      this.unwritten.delete(delivery.id);
    }
    const claims = held.map((d) => ({ id: d.id, claim_token: d.claim_token, number: d.attempt_count }));
    const release = () => traceHandBack(held, () => this.pool.query(HAND_BACK, [JSON.stringify(claims)]));
    this.handingBack = this.handingBack.then(release).then(
      () => logger.warn({ deliveries: held.length }, 'shutdown deadline passed: handed back the deliveries whose attempts were still in flight'),
      // Not fatal: their claims expire after the lease and another worker takes them then.
      (err) => logger.error({ err, deliveries: held.length }, 'could not hand back deliveries at shutdown; their claims will expire'),
    );
    return this.handingBack;
  }
}
