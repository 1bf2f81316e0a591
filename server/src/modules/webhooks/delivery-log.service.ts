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
 * The statement of one page of the Webhook Logs (DeliveryLogService.list), and its values; null when the reader
 * may see nothing it asks for (another developer's app reads as empty, revealing nothing about it). The bodies
 * are not read: the log's list does not show them, and a client that asks for `payload` gets them in one
 * statement per page (the payload loader). Reading them cost a third of the statement.
 */
export function logPageStatement(readable: readonly string[] | undefined, filter: WebhookDeliveryFilter, page: Page<[string]>): { text: string; values: unknown[] } | null {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => `$${values.push(value)}`;
  // A developer with one app reads that app's log, filtered or not: the same statement as for one app.
  const oneApp = filter.appId ?? (readable?.length === 1 ? readable[0] : undefined);
  if (oneApp) {
    if (readable && !readable.includes(oneApp)) return null;
    where.push(`d.app_id = ${param(oneApp)}`);
  } else if (readable) {
    if (readable.length === 0) return null;
    where.push(`d.app_id = ANY(${param(readable)}::text[])`);
  }
  if (filter.endpointId) where.push(`d.endpoint_id = ${param(filter.endpointId)}`);
  if (filter.status) where.push(`d.status = ${param(filter.status)}`);
  if (filter.event) where.push(`d.event_type = ${param(EVENT_WIRE_NAME[filter.event])}`);
  if (filter.purchaseId) where.push(`d.purchase_id = ${param(filter.purchaseId)}`);
  if (filter.since) where.push(`d.id >= ${param(idAtTime(filter.since.getTime()))}`);
  if (filter.until) where.push(`d.id < ${param(idAtTime(filter.until.getTime() + 1))}`);
  if (page.after) where.push(`d.id < ${param(page.after[0])}`);
  if (page.before) where.push(`d.id > ${param(page.before[0])}`);

  // One app's deliveries in every status: the pages of each status, merged newest first. The only index led by the
  // app is (app_id, status, id), one range per status: an index on (app_id, id) as well, for this page alone, cost
  // 150 bytes of every delivery's 2,400 (BENCHMARKS.md section 4). So four range scans, each stopped once the merge
  // has its page, whatever the history and however rare a status; a purchase's few deliveries have their own index.
  // The page size is written into the text (an integer pageSize checked): with it a parameter, PostgreSQL costed a
  // plan for any values at a tenth of the rows and planned the four scans afresh on every call (0.45 ms at 1,000,000
  // deliveries against 0.05 ms to run them); with it known, the plan kept for the statement costs as much as one
  // made for the values, and is kept.
  if (oneApp !== undefined && !filter.status && !filter.purchaseId) {
    const limit = page.limit + 1;
    if (!Number.isSafeInteger(limit)) throw new Error(`page limit ${page.limit} is not an integer`);
    const pageOrder = `ORDER BY d.id ${page.backward ? 'ASC' : 'DESC'} LIMIT ${limit}`;
    const byStatus = Object.values(DeliveryStatus).map(
      (status) => `(SELECT d.* FROM webhook_deliveries d WHERE ${[...where, `d.status = ${sqlLiterals(status)}`].join(' AND ')} ${pageOrder})`,
    );
    return { text: `SELECT d.* FROM (${byStatus.join(' UNION ALL ')}) d ${pageOrder}`, values };
  }
  const order = `ORDER BY d.id ${page.backward ? 'ASC' : 'DESC'} LIMIT ${param(page.limit + 1)}`;
  return { text: `SELECT d.* FROM webhook_deliveries d ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ${order}`, values };
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
    // PostgreSQL plans this afresh on every call (a generic plan cannot know how many rows each app has).
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
