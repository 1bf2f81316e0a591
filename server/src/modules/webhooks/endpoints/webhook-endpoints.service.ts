import type { DataSource, EntityManager } from 'typeorm';
import { notFound } from '../../../platform/errors.js';
import { ulid } from '../../../platform/ids.js';
import { blockedHostReason } from '../../../platform/outbound-http/address-policy.js';
import { sqlLiterals } from '../../../platform/sql-literals.js';
import { mirrorWebhookDestination } from '../../apps/index.js';
import { DeliveryEvent } from '../delivery/delivery-lifecycle.js';
import { transitionSql } from '../delivery/delivery-lifecycle-sql.js';
import { WebhookEventType, WebhookState } from '../webhook.types.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import type { WebhookEndpointInput } from './webhook-endpoint.input.js';
import { healthOfEndpoints, type WebhookEndpointHealthView } from './webhook-endpoint-health.js';
import { heldReasonSql, RECEIVABLE_EVENTS, WebhookEndpointState } from './webhook-endpoint.types.js';
import { webhookErrors } from '../webhook.errors.js';

const { ENABLED, PAUSED, DISABLED } = WebhookEndpointState;

const HOLD = transitionSql(DeliveryEvent.WEBHOOK_DISABLED, 'd', {}, heldReasonSql('e.state'));
/** Which of the endpoints $1 are paused or disabled, and which of their deliveries are open with no worker holding them. */
const OPEN_OF_ENDPOINTS_OFF = `e.id = ANY($1::text[]) AND e.state <> ${sqlLiterals(ENABLED)} AND d.endpoint_id = e.id AND d.app_id = e.app_id
     AND d.next_attempt_at IS NOT NULL AND ${HOLD.where}
     AND (d.claim_expires_at IS NULL OR d.claim_expires_at < clock_timestamp())`;
/**
 * Open deliveries of the endpoints $1 no worker holds, while their endpoint is paused or disabled: HELD (stored
 * FAILED with the reason, no next attempt), for recovery to send. One held by a worker is held by its claim's end instead.
 *
 * The rows are locked first, in one pass in delivery id order (to_hold; the LockRows step runs above the sort), and
 * a row another transaction holds is stepped over, not waited for:
 * - A result write holds some of these rows (a claim whose lease ran out is still its worker's to write) and takes
 *   the rest in id order. Locked by the UPDATE as its join met them (the order of the table's pages), the sweep held a
 *   delivery the result write waited for and the other way round: PostgreSQL aborted one of them (40P01).
 * - A paced claim holds the deliveries it is claiming and then waits for their endpoint's row (BOOK_PACED_SLOTS),
 *   which the pause or disable running this has changed already: waiting here for one of those deliveries, each
 *   waited for the other (40P01, a pause that failed).
 * A row stepped over is not lost to the hold: a claim sees the endpoint off when it sends and holds the delivery then
 * (delivery-engine.ts post), and the health sweep runs this again with every recovery pass. A delivery whose claim
 * was being committed as the pause committed is sent, as one already in flight is.
 */
export const HOLD_OPEN_OF_ENDPOINTS = `WITH to_hold AS (
         SELECT d.id FROM webhook_deliveries d, webhook_endpoints e
          WHERE ${OPEN_OF_ENDPOINTS_OFF}
          ORDER BY d.id
            FOR UPDATE OF d SKIP LOCKED
       )
  UPDATE webhook_deliveries d
     SET ${HOLD.set}, updated_at = clock_timestamp()
    FROM webhook_endpoints e
   -- An array read once, before any row is changed: every row is locked by then.
   WHERE d.id = ANY (ARRAY(SELECT id FROM to_hold)) AND ${OPEN_OF_ENDPOINTS_OFF}
  RETURNING d.id`;

/**
 * The endpoints $1 still ENABLED ($3) turn DISABLED ($2). A claim books its paced endpoints on their rows, locked in
 * key order (delivery-queries.ts BOOK_PACED_SLOTS): these are locked first in that order too, as the UPDATE alone
 * locked them in the order of the table's pages, holding one the claim waited for while waiting for one it held.
 */
const DISABLE_ENABLED = `UPDATE webhook_endpoints SET state = $2, updated_at = clock_timestamp()
   WHERE id = ANY (ARRAY(SELECT id FROM webhook_endpoints WHERE id = ANY($1::text[]) AND state = $3 ORDER BY id FOR NO KEY UPDATE)) AND state = $3
  RETURNING *`;

const GIVE_UP = transitionSql(DeliveryEvent.ENDPOINT_DELETED, 'd');
/** The open deliveries of endpoint $1 (of app $2), being deleted: nowhere is left to send them, so they give up (held ones stay held). */
const GIVE_UP_OPEN_OF_ENDPOINT = `UPDATE webhook_deliveries d
     SET ${GIVE_UP.set}, claim_token = NULL, claim_expires_at = NULL, updated_at = clock_timestamp()
   WHERE d.endpoint_id = $1 AND d.app_id = $2 AND d.next_attempt_at IS NOT NULL AND ${GIVE_UP.where}`;

/** An app's endpoints, oldest first: the first is the one the app's Webhook URL names. */
const ENDPOINTS_OF_APP = 'SELECT * FROM webhook_endpoints WHERE app_id = $1 ORDER BY created_at, id';

const toEndpoint = (row: Record<string, unknown>): WebhookEndpoint =>
  Object.assign(new WebhookEndpoint(), {
    id: row.id,
    appId: row.app_id,
    url: row.url,
    description: row.description ?? null,
    subscribedEvents: row.events ?? null,
    state: row.state,
    rateLimitPerSecond: row.rate_limit_per_second ?? null,
    paceNextAt: row.pace_next_at ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

/** Events as stored: in one order without repeats, and null for all of them (so that events added later are received too). */
function storedEvents(events: readonly WebhookEventType[]): WebhookEventType[] | null {
  const chosen = RECEIVABLE_EVENTS.filter((event) => events.includes(event));
  return chosen.length < RECEIVABLE_EVENTS.length ? chosen : null;
}

/** What a changed endpoint's fields are stored as: one order without repeats, and every event as null (future ones included). */
function stored(input: WebhookEndpointInput): { url: string; description: string | null; events: WebhookEventType[] | null; rateLimitPerSecond: number | null } {
  const description = input.description?.trim() || null;
  return {
    url: input.url.trim(),
    description,
    events: input.events ? storedEvents(input.events) : null,
    rateLimitPerSecond: input.rateLimitPerSecond ?? null,
  };
}

/**
 * An app's webhook endpoints (issue "Endpoints"): where its events go, each with its events, state and pace.
 * Changes to one app's endpoints are serialised (a transaction-scoped lock on the app id), so that the count
 * limit holds and the app's Webhook URL (its first endpoint, mirrored onto the app) is always the first's.
 * The caller has checked who may ask.
 */
export class WebhookEndpointsService {
  constructor(
    private readonly db: DataSource,
    private readonly options: { endpointsPerApp: number; allowPrivateUrls: boolean },
  ) {}

  /** Oldest first. */
  async list(appId: string, manager: EntityManager = this.db.manager): Promise<WebhookEndpoint[]> {
    return (await manager.query(ENDPOINTS_OF_APP, [appId])).map(toEndpoint);
  }

  /** The endpoints of `appIds`, each app's oldest first (one query for a page of apps). */
  async listForApps(appIds: readonly string[]): Promise<Map<string, WebhookEndpoint[]>> {
    const rows: Record<string, unknown>[] = appIds.length
      ? await this.db.query('SELECT * FROM webhook_endpoints WHERE app_id = ANY($1::text[]) ORDER BY created_at, id', [appIds])
      : [];
    const byApp = new Map<string, WebhookEndpoint[]>(appIds.map((id) => [id, []]));
    for (const row of rows) byApp.get(row.app_id as string)?.push(toEndpoint(row));
    return byApp;
  }

  async find(id: string, manager: EntityManager = this.db.manager): Promise<WebhookEndpoint | null> {
    const [row] = await manager.query('SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
    return row ? toEndpoint(row) : null;
  }

  /** The endpoints of `ids` that exist, by id. */
  async findMany(ids: readonly string[]): Promise<Map<string, WebhookEndpoint>> {
    if (ids.length === 0) return new Map();
    const rows: Record<string, unknown>[] = await this.db.query('SELECT * FROM webhook_endpoints WHERE id = ANY($1::text[])', [ids]);
    return new Map(rows.map((row) => [row.id as string, toEndpoint(row)]));
  }

  /** The health of the endpoints `ids` that exist (the caller decides who sees it). */
  healthOf(ids: readonly string[]): Promise<Map<string, WebhookEndpointHealthView>> {
    return healthOfEndpoints(this.db, ids);
  }

  async create(appId: string, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
    const fields = stored(input);
    this.checkUrl(fields.url, 'url');
    return this.db.transaction(async (manager) => {
      const existing = await this.lockEndpointsOf(manager, appId);
      if (existing.length >= this.options.endpointsPerApp) throw webhookErrors.tooManyEndpoints(this.options.endpointsPerApp);
      const endpoint = await this.insert(manager, appId, fields);
      await this.mirror(manager, appId);
      return endpoint;
    });
  }

  /** Replaces every field the owner sets (a field not given is its default: every event, no description, no pace); no review. */
  async update(id: string, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
    const fields = stored(input);
    this.checkUrl(fields.url, 'url');
    return this.inAppOf(id, async (manager, endpoint) => {
      await manager.query('UPDATE webhook_endpoints SET url = $2, description = $3, events = $4, rate_limit_per_second = $5, updated_at = clock_timestamp() WHERE id = $1', [
        id,
        fields.url,
        fields.description,
        fields.events,
        fields.rateLimitPerSecond,
      ]);
      await this.mirror(manager, endpoint.appId);
      return (await this.find(id, manager))!;
    });
  }

  /** Deletes the endpoint; its deliveries stay in the log (their endpoint reads null), those still open give up. */
  async delete(id: string): Promise<boolean> {
    return this.inAppOf(id, async (manager, endpoint) => {
      await this.remove(manager, endpoint);
      await this.mirror(manager, endpoint.appId);
      return true;
    });
  }

  /** Nothing is sent to it from now: new events are recorded held, and so are its open deliveries no worker holds. */
  async pause(id: string): Promise<WebhookEndpoint> {
    return this.setState(id, PAUSED);
  }

  /** ENABLED again (after a pause or an automatic disable): new events are sent; held ones wait for recoverWebhookDeliveries. */
  async resume(id: string): Promise<WebhookEndpoint> {
    return this.setState(id, ENABLED);
  }

  /** enableWebhook (the second round's app-level name): every endpoint of the app disabled after failure is ENABLED again. */
  async enableDisabledOf(appId: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      const endpoints = await this.lockEndpointsOf(manager, appId);
      const disabled = endpoints.filter((endpoint) => endpoint.state === DISABLED).map((endpoint) => endpoint.id);
      if (disabled.length === 0) return;
      await manager.query('UPDATE webhook_endpoints SET state = $2, updated_at = clock_timestamp() WHERE id = ANY($1::text[])', [disabled, ENABLED]);
      await this.startHealthAfresh(manager, disabled);
      await this.mirror(manager, appId);
    });
  }

  /**
   * The app's Webhook URL and events as submitApp/updateApp set them (in the app's transaction): its first
   * endpoint gets them, is made when there is none, and is deleted when the URL is removed.
   */
  async setFirstFromApp(manager: EntityManager, appId: string, url: string | null, events: readonly WebhookEventType[]): Promise<void> {
    const [first] = await this.lockEndpointsOf(manager, appId);
    if (url === null) {
      if (first) await this.remove(manager, first);
    } else if (first) {
      await manager.query('UPDATE webhook_endpoints SET url = $2, events = $3, updated_at = clock_timestamp() WHERE id = $1', [first.id, url, storedEvents(events)]);
    } else {
      await this.insert(manager, appId, { url, description: null, events: storedEvents(events), rateLimitPerSecond: null });
    }
    await this.mirror(manager, appId);
  }

  /** Health sweep: the endpoints `ids` still ENABLED turn DISABLED, and are answered; a sweep at the same time finds them DISABLED. */
  async disable(manager: EntityManager, ids: readonly string[]): Promise<WebhookEndpoint[]> {
    if (ids.length === 0) return [];
    const [rows]: [Record<string, unknown>[], number] = await manager.query(DISABLE_ENABLED, [ids, DISABLED, ENABLED]);
    const disabled = rows.map(toEndpoint);
    for (const appId of new Set(disabled.map((endpoint) => endpoint.appId))) await this.mirror(manager, appId);
    return disabled;
  }

  /** The endpoints not ENABLED now (paused or disabled): their open deliveries are held. */
  async notEnabled(manager: EntityManager): Promise<string[]> {
    const rows: { id: string }[] = await manager.query('SELECT id FROM webhook_endpoints WHERE state <> $1', [ENABLED]);
    return rows.map((row) => row.id);
  }

  private async setState(id: string, state: WebhookEndpointState): Promise<WebhookEndpoint> {
    return this.inAppOf(id, async (manager, endpoint) => {
      if (endpoint.state === state) return endpoint;
      await manager.query('UPDATE webhook_endpoints SET state = $2, updated_at = clock_timestamp() WHERE id = $1', [id, state]);
      // Back on: a new run of failures starts from nothing (the one that disabled it was told of already).
      if (state === ENABLED) await this.startHealthAfresh(manager, [id]);
      else await manager.query(HOLD_OPEN_OF_ENDPOINTS, [[id]]);
      await this.mirror(manager, endpoint.appId);
      return (await this.find(id, manager))!;
    });
  }

  private async remove(manager: EntityManager, endpoint: WebhookEndpoint): Promise<void> {
    await manager.query(GIVE_UP_OPEN_OF_ENDPOINT, [endpoint.id, endpoint.appId]);
    await manager.query('DELETE FROM webhook_endpoint_health WHERE endpoint_id = $1', [endpoint.id]);
    await manager.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
  }

  private async startHealthAfresh(manager: EntityManager, ids: readonly string[]): Promise<void> {
    await manager.query('UPDATE webhook_endpoint_health SET failing_since = NULL, failed_deliveries = 0, alert_open = false WHERE endpoint_id = ANY($1::text[])', [ids]);
  }

  private async insert(manager: EntityManager, appId: string, fields: ReturnType<typeof stored>): Promise<WebhookEndpoint> {
    const rows: Record<string, unknown>[] = await manager.query(
      `INSERT INTO webhook_endpoints (id, app_id, url, description, events, state, rate_limit_per_second, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp(), clock_timestamp()) RETURNING *`,
      [`ep_${ulid()}`, appId, fields.url, fields.description, fields.events, ENABLED, fields.rateLimitPerSecond],
    );
    return toEndpoint(rows[0]!);
  }

  /** Runs `work` with endpoint `id` and its app's endpoints locked; NOT_FOUND when there is no such endpoint. */
  private async inAppOf<T>(id: string, work: (manager: EntityManager, endpoint: WebhookEndpoint) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      const found = await this.find(id, manager);
      if (!found) throw notFound('Webhook endpoint');
      const endpoint = (await this.lockEndpointsOf(manager, found.appId)).find((each) => each.id === id);
      // Deleted while this waited for the lock.
      if (!endpoint) throw notFound('Webhook endpoint');
      return work(manager, endpoint);
    });
  }

  /** The app's endpoints, oldest first, with every change to them waiting for this transaction. */
  private async lockEndpointsOf(manager: EntityManager, appId: string): Promise<WebhookEndpoint[]> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('plaza.endpoints-of:' || $1, 0))`, [appId]);
    return this.list(appId, manager);
  }

  /**
   * The app's Webhook URL and events become its first endpoint's, and its webhook state (App.webhookState, what
   * enableWebhook speaks of) DISABLED when failure has left it no endpoint that receives: one disabled and none
   * enabled. An app with one endpoint has that endpoint's state, as before endpoints; one with a healthy endpoint
   * beside a disabled one still receives, and its page names the disabled endpoint instead.
   */
  private async mirror(manager: EntityManager, appId: string): Promise<void> {
    const endpoints = await this.list(appId, manager);
    const first = endpoints[0];
    const noneReceives = endpoints.some((endpoint) => endpoint.state === DISABLED) && !endpoints.some((endpoint) => endpoint.state === ENABLED);
    await mirrorWebhookDestination(manager, appId, {
      url: first?.url ?? null,
      events: first?.events ?? [...RECEIVABLE_EVENTS],
      state: noneReceives ? WebhookState.DISABLED : WebhookState.ENABLED,
    });
  }

  /** https and no internal address, unless WEBHOOK_ALLOW_PRIVATE_URLS (the app's Webhook URL's rules, for `field`). */
  private checkUrl(value: string, field: string): void {
    if (this.options.allowPrivateUrls) return;
    const url = new URL(value);
    if (url.protocol !== 'https:') throw webhookErrors.endpointNotHttps(field);
    const reason = blockedHostReason(url);
    if (reason) throw webhookErrors.endpointInternal(field, reason);
  }
}
