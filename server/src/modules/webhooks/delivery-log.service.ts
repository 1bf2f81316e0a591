import { encodeTime } from 'ulid';
import type { DataSource } from 'typeorm';
import { badInput } from '../../platform/errors.js';
import { readPage, toConnection, type Connection, type Page, type PageArgs } from '../../platform/connection.js';
import { perTickLoader } from '../../platform/per-tick-loader.js';
import { queryPrepared, queryPreparedVariant } from '../../platform/prepared-query.js';
import { seesEveryApp, type Principal } from '../../platform/auth/principal.js';
import { sqlLiterals } from '../../platform/sql-literals.js';
import { DeliveryAttempt } from './delivery-attempt.entity.js';
import { DELIVERY_WITH_ATTEMPTS } from './delivery/log-queries.js';
import { readAttempts, readLastAttempts, toAttempt } from './delivery/attempt-reads.js';
import type { WebhookDeliveryFilter } from './dto/webhook-delivery-filter.input.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { DeliveryStatus, EVENT_WIRE_NAME } from './webhook.types.js';

/**
 * The bodies of events $1, by their own ids. Not joined from the deliveries: webhook_events is partitioned
 * by time (its id), and only ids known when the statement is planned (an unnamed statement is planned
 * with its values) let PostgreSQL plan just the partitions holding them. Joined, it planned every
 * partition (65: 0.6 ms for a page of 20 instead of 0.2), and with hundreds it read them all (370: 81 ms).
 */
export const EVENT_BODIES = 'SELECT id, payload FROM webhook_events WHERE id = ANY($1::text[])';

/** Delivery ids are `dlv_` + ULID, so a creation time bounds them: time ranges become id ranges on the same index. */
export const idAtTime = (ms: number) => `dlv_${encodeTime(ms, 10)}`;

/**
 * Up to this many apps, a page of their deliveries together merges each app's ranges (logPageStatement): at most four
 * range scans per app. Past it, PostgreSQL walks the primary key for them (as for every developer before). Each of a
 * connection's first five calls of a statement plans it for its values: 0.5 ms for one app's 4 ranges, 1.8 ms for
 * 3 apps' 12 and 8 ms for 10 apps' 40 at 1,000,000 deliveries (busy machine); after that the plan is kept (1-2 ms a call).
 */
export const MERGED_LOG_APPS_AT_MOST = 5;

/**
 * The statement of one page of the Webhook Logs (DeliveryLogService.list), and its values; null when the reader
 * may see nothing it asks for (another developer's app reads as empty, revealing nothing about it). The bodies
 * are not read: the log's list does not show them, and a client that asks for `payload` gets them in one
 * statement per page (the payload loader). Reading them cost a third of the statement.
 */
export function logPageStatement(readable: readonly string[] | undefined, filter: WebhookDeliveryFilter, page: Page<[string]>): { text: string; values: unknown[] } | null {
  if (filter.appId && readable && !readable.includes(filter.appId)) return null;
  // The apps whose deliveries are asked for: the one named, or every app the reader owns; undefined for every app (admins).
  const apps = filter.appId ? [filter.appId] : readable;
  if (apps?.length === 0) return null;
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  const status = filter.status ? param(filter.status) : undefined;
  const conditions: string[] = [];
  if (filter.endpointId) conditions.push(`d.endpoint_id = ${param(filter.endpointId)}`);
  if (filter.event) conditions.push(`d.event_type = ${param(EVENT_WIRE_NAME[filter.event])}`);
  if (filter.purchaseId) conditions.push(`d.purchase_id = ${param(filter.purchaseId)}`);
  if (filter.since) conditions.push(`d.id >= ${param(idAtTime(filter.since.getTime()))}`);
  if (filter.until) conditions.push(`d.id < ${param(idAtTime(filter.until.getTime() + 1))}`);
  if (page.after) conditions.push(`d.id < ${param(page.after[0])}`);
  if (page.before) conditions.push(`d.id > ${param(page.before[0])}`);
  const direction = page.backward ? 'ASC' : 'DESC';

  // A few apps' deliveries (one app's, or a developer's apps together): the page of each app and status, merged
  // newest first. The only index led by the app is (app_id, status, id), one range per app and status: an index on
  // (app_id, id) as well cost 150 bytes of every delivery's 2,400 (BENCHMARKS.md section 4), and did not serve a
  // developer's apps together anyway (the primary key was walked for them, as far as their share of all deliveries
  // made it). So a range scan per app and status, each stopped once the merge has its page, whatever the history and
  // however rare a status. One app and one status is one range already; a purchase's few deliveries have their own index.
  // The page size is written into the text (an integer pageSize checked): with it a parameter, PostgreSQL costed a
  // plan for any values at a tenth of the rows and planned the scans afresh on every call (0.45 ms for one app's four
  // at 1,000,000 deliveries, against 0.05 ms to run them); with it known, the plan kept for the statement costs as
  // much as one made for the values, and is kept.
  if (apps && apps.length <= MERGED_LOG_APPS_AT_MOST && !filter.purchaseId && !(apps.length === 1 && status)) {
    const limit = page.limit + 1;
    if (!Number.isSafeInteger(limit)) throw new Error(`page limit ${page.limit} is not an integer`);
    const pageOrder = `ORDER BY d.id ${direction} LIMIT ${limit}`;
    const statuses = status ? [status] : Object.values(DeliveryStatus).map((each) => sqlLiterals(each));
    const ranges = apps.flatMap((app) => {
      const appParam = param(app);
      return statuses.map((each) => `(SELECT d.* FROM webhook_deliveries d WHERE ${[`d.app_id = ${appParam}`, `d.status = ${each}`, ...conditions].join(' AND ')} ${pageOrder})`);
    });
    return { text: `SELECT d.* FROM (${ranges.join(' UNION ALL ')}) d ${pageOrder}`, values };
  }
  // With the page size a parameter, PostgreSQL plans this afresh on every call: a kept plan cannot know how many rows
  // each app has, nor how far the primary key must be walked for a developer's many apps.
  const where = [
    ...(apps === undefined ? [] : apps.length === 1 ? [`d.app_id = ${param(apps[0])}`] : [`d.app_id = ANY(${param(apps)}::text[])`]),
    ...(status ? [`d.status = ${status}`] : []),
    ...conditions,
  ];
  return { text: `SELECT d.* FROM webhook_deliveries d ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY d.id ${direction} LIMIT ${param(page.limit + 1)}`, values };
}

/**
 * The Webhook Logs, read: owners see their apps' deliveries, admins everyone's. Sending a delivery again
 * (redelivery, recovery) is delivery/delivery-recovery.ts's, beside the engine.
 */
export class DeliveryLogService {
  /** Attempts of one delivery, oldest first; the deliveries of one page ask together (one query). */
  readonly attempts: (deliveryId: string) => Promise<DeliveryAttempt[]>;
  /** The latest attempt of one delivery, null before its first; the deliveries of one page (or one turn of live updates) ask together. */
  readonly lastAttempt: (deliveryId: string) => Promise<DeliveryAttempt | null>;
  /**
   * The body of a delivery that came without it (a live update, a page of the log); the deliveries of one
   * turn ask together. null when it is no longer kept (WEBHOOK_BODY_RETENTION removed its event).
   */
  readonly payload: (deliveryId: string) => Promise<string | null>;
  /** As `payload`, for a delivery read with its event id (a page of the log): its body straight from the event. */
  readonly bodyOfEvent: (eventId: string) => Promise<string | null>;

  constructor(private readonly db: DataSource) {
    this.attempts = perTickLoader(
      async (deliveryIds: string[]) => {
        const attempts = await readAttempts(this.db, deliveryIds);
        const byDelivery = new Map<string, DeliveryAttempt[]>();
        for (const attempt of attempts) {
          const ofDelivery = byDelivery.get(attempt.deliveryId);
          if (ofDelivery) ofDelivery.push(attempt);
          else byDelivery.set(attempt.deliveryId, [attempt]);
        }
        return byDelivery;
      },
      () => [],
    );
    this.lastAttempt = perTickLoader(
      async (deliveryIds: string[]) => new Map((await readLastAttempts(this.db, deliveryIds)).map((attempt) => [attempt.deliveryId, attempt])),
      () => null,
    );
    this.payload = perTickLoader(
      async (deliveryIds: string[]) => {
        const deliveries: { id: string; event_id: string }[] = await this.db.query('SELECT id, event_id FROM webhook_deliveries WHERE id = ANY($1::text[])', [deliveryIds]);
        const bodies = await this.bodiesOf(deliveries.map((d) => d.event_id));
        return new Map(deliveries.flatMap((d) => (bodies.has(d.event_id) ? [[d.id, bodies.get(d.event_id)!] as const] : [])));
      },
      // No row: the event is gone (deliveries themselves are never deleted).
      () => null,
    );
    this.bodyOfEvent = perTickLoader(
      (eventIds: string[]) => this.bodiesOf(eventIds),
      () => null,
    );
  }

  /**
   * Newest first, keyset-paged on the delivery id, so pages stay stable while new deliveries arrive. `readable`: the
   * apps whose deliveries the reader may see (the apps they own), undefined for every app's (admins).
   */
  async list(readable: readonly string[] | undefined, filter: WebhookDeliveryFilter = {}, args: PageArgs): Promise<Connection<WebhookDelivery>> {
    const page = readPage(args, ['string']);
    if (filter.since && filter.until && filter.since > filter.until) throw badInput('until', 'until must not be before since');

    const statement = logPageStatement(readable, filter, page);
    if (statement === null) return toConnection([], page, () => []);
    const rows = await queryPreparedVariant<LogPageRow>(this.db.manager, 'plaza_log_page', statement.text, statement.values);
    return toConnection(rows.map(toDelivery), page, (d) => [d.id]);
  }

  /** The delivery with its attempts, as of one moment (DELIVERY_WITH_ATTEMPTS). */
  async get(principal: Principal, id: string): Promise<WebhookDelivery | null> {
    const rows = await queryPrepared<LogPageRow & { owner_id: string; attempt_number: number | null }>(this.db.manager, 'plaza_delivery_with_attempts', DELIVERY_WITH_ATTEMPTS, [
      id,
    ]);
    const [row] = rows;
    if (!row || (row.owner_id !== principal.userId && !seesEveryApp(principal))) return null;
    // A delivery whose body passed WEBHOOK_BODY_RETENTION is still shown, without it (payload null). The body never
    // changes while kept, so reading it apart from the snapshot shows nothing out of step.
    const bodies = await this.bodiesOf([row.event_id]);
    const delivery = toDelivery({ ...row, payload: bodies.get(row.event_id) ?? null });
    delivery.attemptList = row.attempt_number === null ? [] : rows.map((attempt) => toAttempt(attempt, 'attempt_'));
    return delivery;
  }

  /** The bodies of events `eventIds` still kept, by their ids (EVENT_BODIES: why not a join). */
  private async bodiesOf(eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows: { id: string; payload: string }[] = await this.db.query(EVENT_BODIES, [eventIds]);
    return new Map(rows.map((row) => [row.id, row.payload]));
  }
}

/** A row of the log page's statement, as pg returns it (column names as written in the SQL). */
interface LogPageRow {
  id: string;
  event_id: string;
  app_id: string;
  endpoint_id: string | null;
  event_type: WebhookDelivery['eventType'];
  purchase_id: string;
  status: WebhookDelivery['status'];
  attempt_count: number;
  scheduled_attempts_done: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  held_reason?: string | null;
  recovering?: boolean | null;
  /** Absent from the log page's rows: the payload loader reads it when asked for; null when the body is no longer kept. */
  payload?: string | null;
}

function toDelivery(row: LogPageRow): WebhookDelivery {
  return Object.assign(new WebhookDelivery(), {
    id: row.id,
    eventId: row.event_id,
    appId: row.app_id,
    endpointId: row.endpoint_id ?? `ep_${row.app_id.slice('app_'.length)}`,
    eventType: row.event_type,
    purchaseId: row.purchase_id,
    status: row.status,
    attemptCount: row.attempt_count,
    scheduledAttemptsDone: row.scheduled_attempts_done,
    nextAttemptAt: row.next_attempt_at,
    claimToken: null,
    claimExpiresAt: null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    heldReason: row.held_reason ?? null,
    recovering: row.recovering ?? false,
    payloadText: row.payload,
  });
}
