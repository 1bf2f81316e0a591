import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApolloServerPlugin } from '@apollo/server';
import type { NextFunction, Request, Response } from 'express';
import { Kind, type OperationDefinitionNode } from 'graphql';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PostgresPubSub } from './pubsub.js';
import { ErrorCode } from './errors.js';
import { errorBody } from './http-errors.js';

/** Paths with their own label; every other GET is the single-page app, so the label set stays small. */
const KNOWN_ROUTES = ['/graphql', '/healthz', '/readyz', '/metrics', '/.well-known/jwks.json', '/auth/dev/sign-in', '/auth/oidc/login', '/auth/oidc/callback', '/auth/sign-out'];
const routeLabel = (path: string) => KNOWN_ROUTES.find((route) => path === route) ?? (path.startsWith('/auth/') ? '/auth/*' : 'spa');

/** The open deliveries at scrape time, as the feature that owns them reads them (modules/webhooks: deliveryBacklog). */
export interface DeliveryBacklog {
  /** The open statuses, each reported even at 0. */
  readonly statuses: readonly string[];
  openByStatus(): Promise<ReadonlyMap<string, number>>;
  /** Deliveries whose next attempt is due now or overdue. */
  due(): Promise<number>;
  /** How late the most overdue attempt is, 0 when nothing is due. */
  oldestDueSeconds(): Promise<number>;
}

/** What GET /metrics answers, for either server to send. */
export interface MetricsAnswer {
  httpStatus: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * GET /metrics, answered the same on the API's port and a worker's. Without METRICS_TOKEN anyone may
 * read it (the contract's default: a scraper on the internal network; only counts and latencies,
 * never an id or a secret); with it, only a request bearing that token, compared in constant time.
 */
export function metricsEndpoint(metrics: PlazaMetrics, token: string | undefined): (authorization: string | undefined) => Promise<MetricsAnswer> {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const expected = token === undefined ? undefined : digest(token);
  const refused: MetricsAnswer = {
    httpStatus: 401,
    headers: { 'www-authenticate': 'Bearer realm="plaza-metrics"', 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(errorBody(ErrorCode.UNAUTHENTICATED, 'This Plaza requires METRICS_TOKEN for /metrics: send Authorization: Bearer <token>')),
  };
  return async (authorization) => {
    if (expected !== undefined) {
      const given = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
      if (!timingSafeEqual(digest(given), expected)) return refused;
    }
    return { httpStatus: 200, headers: { 'content-type': metrics.registry.contentType }, body: await metrics.registry.metrics() };
  };
}

/** Seconds: webhook attempts run from a few ms on loopback to WEBHOOK_TIMEOUT (10 s by default). */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * Prometheus metrics of one Plaza process, served at /metrics. One registry per process (not the
 * library's global one), so several Plazas in one test process do not mix their figures.
 */
export class PlazaMetrics {
  readonly registry = new Registry();
  private readonly attemptDuration = new Histogram({
    name: 'plaza_webhook_attempt_duration_seconds',
    help: 'Webhook attempts by outcome (success = 2xx)',
    labelNames: ['outcome'],
    buckets: ATTEMPT_BUCKETS,
    registers: [this.registry],
  });
  private readonly deliveriesFinished = new Counter({
    name: 'plaza_webhook_deliveries_finished_total',
    help: 'Deliveries this process moved to a final status',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly claims = new Counter({
    name: 'plaza_webhook_claims_total',
    help: 'Claim statements this process ran, by whether they took any delivery',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'plaza_http_request_duration_seconds',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });
  /** Signed-out store reads answered from memory, and answers kept (app/store-response-cache.ts, an ExpiringCache); a hit never reaches graphqlDuration. */
  private readonly storeResponses = new Counter({
    name: 'plaza_store_response_cache_total',
    help: 'Signed-out store reads answered from the response cache (hit) and answers it kept (stored)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  private readonly storeResponseHits = this.storeResponses.labels('hit');
  private readonly graphqlDuration = new Histogram({
    name: 'plaza_graphql_operation_duration_seconds',
    help: 'GraphQL operations over HTTP by type, first root field and outcome',
    labelNames: ['operation_type', 'root_field', 'outcome'],
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'plaza_' });
  }

  /**
   * Figures read at scrape time: the delivery backlog from the webhooks feature (its table, its statements;
   * handed in by app/, since platform imports no feature) and this process's live subscriptions.
   */
  watch(backlog: DeliveryBacklog, pubSub: PostgresPubSub): void {
    new Gauge({
      name: 'plaza_webhook_deliveries_open',
      help: 'Deliveries not yet final, by status (PENDING, RETRYING)',
      labelNames: ['status'],
      registers: [this.registry],
      async collect() {
        const counts = await backlog.openByStatus();
        for (const status of backlog.statuses) this.set({ status }, counts.get(status) ?? 0);
      },
    });
    new Gauge({
      name: 'plaza_webhook_due_backlog',
      help: 'Deliveries whose next attempt is due now or overdue',
      registers: [this.registry],
      async collect() {
        this.set(await backlog.due());
      },
    });
    new Gauge({
      name: 'plaza_webhook_due_backlog_oldest_seconds',
      help: 'How late the most overdue attempt is (0 when nothing is due)',
      registers: [this.registry],
      async collect() {
        this.set(await backlog.oldestDueSeconds());
      },
    });
    new Gauge({
      name: 'plaza_graphql_subscriptions',
      help: 'Live GraphQL subscriptions in this process',
      registers: [this.registry],
      collect() {
        this.set(pubSub.subscriptionCount);
      },
    });
  }

  observeAttempt(durationMs: number, succeeded: boolean): void {
    this.attemptDuration.observe({ outcome: succeeded ? 'success' : 'failure' }, durationMs / 1000);
  }

  countFinished(status: string): void {
    this.deliveriesFinished.inc({ status });
  }

  /** One claim statement: how often the engine asks the queue, and how often for nothing (idle polling shows here). */
  countClaim(deliveries: number): void {
    this.claims.inc({ result: deliveries > 0 ? 'claimed' : 'empty' });
  }

  countStoreResponse(result: 'hit' | 'stored'): void {
    if (result === 'hit') this.storeResponseHits.inc();
    else this.storeResponses.inc({ result });
  }

  /** Claim statements so far (all results), for tests and diagnostics in this process. */
  async claimCount(): Promise<number> {
    const { values } = await this.claims.get();
    return values.reduce((sum, { value }) => sum + value, 0);
  }

  /** Express middleware timing every request, labelled by a bounded route name. */
  readonly httpMiddleware = (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // Read now: a mounted router (app.use('/graphql', …)) rewrites req.path before the response ends.
    const route = routeLabel(req.path);
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.httpDuration.observe({ method: req.method, route, status_code: String(res.statusCode) }, seconds);
    });
    next();
  };

  /**
   * Times requests of one method and route known up front (the lean POST /graphql path, graphql-http.ts)
   * into the same histogram as httpMiddleware; each status code's label set is bound once, so a request
   * adds no allocation and no label hashing.
   */
  httpTimer(method: string, route: string): (statusCode: number, seconds: number) => void {
    const byStatus = new Map<number, { observe(seconds: number): void }>();
    return (statusCode, seconds) => {
      let timer = byStatus.get(statusCode);
      if (timer === undefined) byStatus.set(statusCode, (timer = this.httpDuration.labels(method, route, String(statusCode))));
      timer.observe(seconds);
    };
  }

  /** Apollo plugin timing each operation; root fields come from the validated document, so the labels stay the schema's own. */
  graphqlPlugin(): ApolloServerPlugin {
    const histogram = this.graphqlDuration;
    // Each label set's series, found once: observing by a labels object hashes it on every request. The root
    // fields are the schema's, so the map is bounded by the schema (and 'invalid', 'fragment').
    const series = new Map<string, { observe(seconds: number): void }>();
    const seriesOf = (operationType: string, rootField: string, outcome: string) => {
      const key = `${operationType} ${rootField} ${outcome}`;
      let found = series.get(key);
      if (found === undefined) series.set(key, (found = histogram.labels(operationType, rootField, outcome)));
      return found;
    };
    return {
      async requestDidStart() {
        const started = process.hrtime.bigint();
        return {
          async willSendResponse({ operation, response }) {
            const seconds = Number(process.hrtime.bigint() - started) / 1e9;
            const failed = response.body.kind === 'single' && (response.body.singleResult.errors?.length ?? 0) > 0;
            seriesOf(operation?.operation ?? 'invalid', operation ? firstRootField(operation) : 'invalid', failed ? 'error' : 'ok').observe(seconds);
          },
        };
      },
    };
  }
}

function firstRootField(operation: OperationDefinitionNode): string {
  const field = operation.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  return field?.kind === Kind.FIELD ? field.name.value : 'fragment';
}
