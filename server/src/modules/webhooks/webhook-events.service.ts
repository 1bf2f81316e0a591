import { TEST_PURCHASE_SUFFIX, type WebhookEvent } from '@plaza/shared';
import type { DataSource, EntityManager } from 'typeorm';
import { afterCommit } from '../../platform/after-commit.js';
import { webhookErrors } from './webhook.errors.js';
import { notFound } from '../../platform/errors.js';
import { newTestPurchaseId, newWebhookId } from '../../platform/ids.js';
import { queryPrepared } from '../../platform/prepared-query.js';
import { activeTraceparent, inSpan } from '../../platform/tracing.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { DeliveryWakeUps } from './delivery/delivery-wake-ups.js';
import { sqlLiterals } from '../../platform/sql-literals.js';
import { DeliveryEvent } from './delivery/delivery-lifecycle.js';
import { recordedColumnsSql } from './delivery/delivery-lifecycle-sql.js';
import { DeliveryStatus, EVENT_WIRE_NAME, WebhookEventType } from './webhook.types.js';
import { heldReasonSql, WebhookEndpointState } from './endpoints/webhook-endpoint.types.js';

const ENABLED = sqlLiterals(WebhookEndpointState.ENABLED);

/** A new delivery's columns, as the lifecycle records it (RECORDED, due at its event's time), or while its endpoint is paused or disabled (held). */
const RECORDED = recordedColumnsSql(DeliveryEvent.RECORDED, 'at');
const RECORDED_HELD = {
  ...recordedColumnsSql(DeliveryEvent.RECORDED_WHILE_DISABLED, 'at'),
  held_reason: heldReasonSql('endpoint_state'),
};
const whetherHeld = (column: keyof typeof RECORDED) =>
  RECORDED[column] === RECORDED_HELD[column] ? RECORDED[column] : `CASE WHEN held THEN ${RECORDED_HELD[column]} ELSE ${RECORDED[column]} END`;

/**
 * The id of an event's delivery to its `nth` endpoint (oldest first): the id made for the event ($7) for the
 * first, and for each further one the same id with its last character moved on by one per endpoint. Made
 * in the statement because only it knows how many endpoints receive the event; the ULID's time and 75 of
 * its 80 random bits stay, so the ids stay unique and in time order (WEBHOOK_ENDPOINTS_PER_APP is far below 32).
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const nthDeliveryId = (id: string, nth: string) =>
  `CASE WHEN ${nth} = 1 THEN ${id} ELSE left(${id}, -1) || substr('${CROCKFORD}', ((strpos('${CROCKFORD}', right(${id}, 1)) - 1 + ${nth} - 1) % 32)::int + 1, 1) END`;

export interface EventFacts {
  type: WebhookEventType;
  appId: string;
  userId: string;
  purchaseId: string;
  amountVnd: number;
  developerShareVnd: number;
  at?: Date;
  /** A developer's test (sendTestWebhook): sent whatever the endpoints' events say. */
  test?: boolean;
  /** Only to this endpoint of the app (a test sent to one); every endpoint that receives the event when absent. */
  endpointId?: string;
}

/** A webhook's body: exactly these seven fields (the app SDK's WebhookEvent, from @plaza/shared), in this order, so receivers can rely on its shape. */
export function webhookPayload(facts: EventFacts, at: Date): string {
  return JSON.stringify({
    event: EVENT_WIRE_NAME[facts.type],
    app_id: facts.appId,
    user_id: facts.userId,
    purchase_id: facts.purchaseId,
    amount_vnd: facts.amountVnd,
    developer_share_vnd: facts.developerShareVnd,
    timestamp: at.toISOString(),
  } satisfies WebhookEvent);
}

export class WebhookEventsService {
  private readonly workers: DeliveryWakeUps;

  /**
   * `testEventsPerMinute` (WEBHOOK_TEST_EVENTS_PER_MINUTE): test events one app may be sent in any minute, counted from
   * the deliveries themselves (so across every API process); each is a request to the developer's server on Plaza's account.
   */
  constructor(
    private readonly db: DataSource,
    private readonly limits: { testEventsPerMinute: number } = { testEventsPerMinute: 10 },
  ) {
    this.workers = new DeliveryWakeUps(db);
  }

  /**
   * The entry point for everything that causes a webhook: call it with the manager of the
   * transaction that records the purchase, install or refund, so the event and its delivery commit
   * with it or not at all. Records one delivery per endpoint of the app that receives the event, and answers
   * the first (its oldest endpoint's); null (and records nothing) when no endpoint receives it, as Svix makes
   * no message for a filtered-out endpoint.
   */
  async recordEvent(manager: EntityManager, facts: EventFacts): Promise<WebhookDelivery | null> {
    const [delivery] = await this.insert(manager, [facts]);
    return delivery ?? null;
  }

  /**
   * Records events and their deliveries in one statement (one round trip inside the caller's
   * transaction, whatever the count): one delivery per endpoint that receives the event (tests and app.test go
   * to every endpoint, or the one named), none for an app without endpoints. Returns what it recorded.
   */
  async insert(manager: EntityManager, all: EventFacts[]): Promise<WebhookDelivery[]> {
    // A span in the business transaction when tracing: its context is stored with the deliveries, and their attempts continue it.
    return inSpan(
      'webhook.event.record',
      () => ({ 'plaza.webhook.events': all.length, 'plaza.webhook.event_types': [...new Set(all.map((facts) => EVENT_WIRE_NAME[facts.type]))] }),
      () => this.record(manager, all),
    );
  }

  private async record(manager: EntityManager, all: EventFacts[]): Promise<WebhookDelivery[]> {
    const rows = all.map((facts) => {
      const at = facts.at ?? new Date();
      return {
        facts,
        at,
        eventId: newWebhookId.event(at.getTime()),
        deliveryId: newWebhookId.delivery(at.getTime()),
        type: EVENT_WIRE_NAME[facts.type],
        payload: webhookPayload(facts, at),
      };
    });
    const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
    const traceParent = activeTraceparent();
    const recorded = await queryPrepared<{
      delivery_id: string;
      event_id: string;
      endpoint_id: string;
      status: DeliveryStatus;
      recovering: boolean;
      held_reason: string | null;
      next_attempt_at: Date | null;
    }>(
      manager,
      'plaza_record_webhook_events',
      `WITH input AS (
         SELECT i.* FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::text[], $9::text[])
                AS i(event_id, type, app_id, purchase_id, payload, at, delivery_id, filtered_as, only_endpoint)
       ), targets AS (
         -- One delivery per endpoint of the app that receives the event: all of them, or the one a test names.
         SELECT input.*, e.id AS endpoint_id, e.state AS endpoint_state, e.state <> ${ENABLED} AS held,
                row_number() OVER (PARTITION BY input.event_id ORDER BY e.created_at, e.id) AS nth
           FROM input JOIN webhook_endpoints e ON e.app_id = input.app_id
            AND (input.only_endpoint IS NULL OR e.id = input.only_endpoint)
            AND (input.filtered_as IS NULL OR e.events IS NULL OR input.filtered_as = ANY (e.events))
       ), events AS (
         -- The id and the body only, once for all its deliveries: the rest is in the body, on the delivery, and in the id (migration 1796000026500).
         INSERT INTO webhook_events (id, payload)
         SELECT event_id, payload FROM targets WHERE nth = 1
       )
       -- While its endpoint is paused or disabled, the delivery is recorded held: FAILED, never attempted, saying why.
       -- trace_parent ($10): the recording span's context, null when not tracing.
       INSERT INTO webhook_deliveries (id, event_id, app_id, endpoint_id, event_type, purchase_id, status, attempt_count, scheduled_attempts_done, next_attempt_at, created_at, updated_at, recovering, held_reason, trace_parent)
       SELECT ${nthDeliveryId('delivery_id', 'nth')}, event_id, app_id, endpoint_id, type, purchase_id, ${whetherHeld('status')}, 0, 0, ${whetherHeld('next_attempt_at')}, at, at,
              ${whetherHeld('recovering')}, ${whetherHeld('held_reason')}, $10::text
         FROM targets
       RETURNING id AS delivery_id, event_id, endpoint_id, status, recovering, held_reason, next_attempt_at`,
      [
        column((r) => r.eventId),
        column((r) => r.type),
        column((r) => r.facts.appId),
        column((r) => r.facts.purchaseId),
        column((r) => r.payload),
        column((r) => r.at.toISOString()),
        column((r) => r.deliveryId),
        // The enum name an endpoint's events list; null for what is sent regardless (tests, app.test).
        column((r) => (r.facts.test || r.facts.type === WebhookEventType.APP_TEST ? null : r.facts.type)),
        column((r) => r.facts.endpointId ?? null),
        traceParent,
      ],
    );
    if (recorded.length === 0) return [];
    // Not a NOTIFY inside the caller's transaction (see DeliveryWakeUps): after the commit.
    afterCommit(manager, () => this.workers.notify());
    const byEvent = new Map(rows.map((r, index) => [r.eventId, { ...r, index }]));
    // In the order of the events given, each event's delivery to its oldest endpoint first (it has the id made for the event): recordEvent answers that one.
    const rank = (d: (typeof recorded)[number]) => byEvent.get(d.event_id)!.index * 2 + (d.delivery_id === byEvent.get(d.event_id)!.deliveryId ? 0 : 1);
    return recorded
      .sort((a, b) => rank(a) - rank(b))
      .map((d) => {
        const r = byEvent.get(d.event_id)!;
        return Object.assign(new WebhookDelivery(), {
          id: d.delivery_id,
          eventId: r.eventId,
          appId: r.facts.appId,
          endpointId: d.endpoint_id,
          eventType: r.type,
          purchaseId: r.facts.purchaseId,
          status: d.status,
          recovering: d.recovering,
          heldReason: d.held_reason,
          attemptCount: 0,
          scheduledAttemptsDone: 0,
          nextAttemptAt: d.next_attempt_at,
          claimToken: null,
          claimExpiresAt: null,
          createdAt: r.at,
          updatedAt: r.at,
          payloadText: r.payload,
          traceParent,
        });
      });
  }

  /**
   * A signed sample event (app.test by default) to the app's webhook URL, through the same engine as
   * real events. Nothing is bought or credited; the purchase_id is a test one (APP-<ms>-TEST..), which
   * also puts `X-Platform-Test: true` on every attempt. Amounts are what a sale of the app would carry.
   */
  async sendTest(
    appId: string,
    userId: string,
    type: WebhookEventType = WebhookEventType.APP_TEST,
    amounts = { amountVnd: 0, developerShareVnd: 0 },
    endpointId?: string,
  ): Promise<WebhookDelivery> {
    const sample = type === WebhookEventType.APP_TEST ? { amountVnd: 0, developerShareVnd: 0 } : amounts;
    return this.db.transaction(async (manager) => {
      await this.assertTestEventAllowed(manager, appId);
      const delivery = await this.recordEvent(manager, { type, appId, userId, purchaseId: newTestPurchaseId(), ...sample, test: true, endpointId });
      if (!delivery && endpointId) throw notFound('Webhook endpoint');
      if (!delivery) throw webhookErrors.noWebhookUrl();
      return delivery;
    });
  }

  /** Throws RATE_LIMITED when the app has had its test events for the last minute. */
  private async assertTestEventAllowed(manager: EntityManager, appId: string): Promise<void> {
    // One app's test events one at a time until their transactions end, so ten asked at once at the ninth cannot all pass the count.
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`plaza.test-events:${appId}`]);
    const since = Date.now() - 60_000;
    // Delivery ids begin with their time (dlv_ and 10 characters of ULID time): the app's index reads only the last minute.
    const [{ sent, oldest }] = await manager.query(
      // Test events, not deliveries: one event to three endpoints is one test.
      `SELECT count(DISTINCT event_id)::int AS sent, min(created_at) AS oldest FROM webhook_deliveries
        WHERE app_id = $1 AND id >= $2 AND created_at > $3 AND purchase_id LIKE 'APP-%-' || $4 || '%'`,
      [appId, newWebhookId.delivery(since).slice(0, 'dlv_'.length + 10), new Date(since), TEST_PURCHASE_SUFFIX],
    );
    const allowed = this.limits.testEventsPerMinute;
    if (sent < allowed) return;
    const retryAfterSeconds = Math.max(1, Math.ceil((new Date(oldest).getTime() + 60_000 - Date.now()) / 1000));
    throw webhookErrors.tooManyTestEvents(allowed, retryAfterSeconds);
  }
}
