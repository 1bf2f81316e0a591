import type { DataSource } from 'typeorm';
import type { EncryptionKey } from '../../config.js';
import { seesEveryApp, type Principal } from '../../platform/auth/principal.js';
import { badInput, notFound } from '../../platform/errors.js';
import { isTestPurchaseId, newTestPurchaseId, newWebhookId, ulid } from '../../platform/ids.js';
import { Topic, type PostgresPubSub } from '../../platform/pubsub.js';
import type { DeliveryLogService } from './delivery-log.service.js';
import { webhookErrors } from './webhook.errors.js';
import { LocalForward, WebhookForwardRequest } from './local-forward.types.js';
import { webhookPayload } from './webhook-events.service.js';
import { webhookHeaders } from './webhook-signing.js';
import { SigningSecrets } from './delivery/opened-secrets.js';
import { appNamesAndOwners } from '../apps/index.js';
import { sealedSecretsOf, type SealedSecrets } from '../secrets/index.js';
import { EVENT_WIRE_NAME, type WebhookEventType } from './webhook.types.js';
import { inSpan } from '../../platform/tracing.js';

const INSERT_TEST_EVENT = `INSERT INTO webhook_cli_events (id, app_id, event_type, payload, triggered_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)`;
const TEST_EVENT = `SELECT id, app_id FROM webhook_cli_events WHERE id = $1`;
const INSERT_FORWARD = `INSERT INTO webhook_local_forwards (id, delivery_id, app_id, test, reported_by, status_code, duration_ms, error, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`;
/** The newest 100 forwards of a delivery, oldest first: a bound any number of listeners cannot grow (the cost estimate counts it). */
const FORWARDS = `SELECT * FROM (SELECT * FROM webhook_local_forwards WHERE delivery_id = $1 ORDER BY created_at DESC, id DESC LIMIT 100) newest ORDER BY created_at, id`;

/** The principal without the roles that open other people's apps: what it may see here is its own apps' only. */
const asOwnerOnly = (principal: Principal): Principal => ({ ...principal, roles: new Set() });

/** An hour: longer than any local receiver should take; a bigger number is a mistake, not a measurement. */
const MAX_DURATION_MS = 3_600_000;
const MAX_ERROR_LENGTH = 500;

export interface LocalForwardReport {
  deliveryId: string;
  statusCode?: number | null;
  durationMs: number;
  error?: string | null;
}

interface ForwardRow {
  id: string;
  delivery_id: string;
  app_id: string;
  test: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: Date;
}

const toForward = (row: ForwardRow): LocalForward =>
  Object.assign(new LocalForward(), {
    id: row.id,
    deliveryId: row.delivery_id,
    appId: row.app_id,
    test: row.test,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: row.created_at,
  });

/**
 * What `plaza listen` and `plaza trigger` need: a delivery's request signed as an attempt
 * would be, sample events that only listening CLI sessions get (never the webhook URL, no purchase,
 * points or ledger entry), and the local receiver's answers, kept apart from the delivery's own
 * attempts so they change neither its status nor its schedule.
 */
export class LocalForwardService {
  /** Opened as the engine opens them for attempts. */
  private readonly secrets: SigningSecrets;

  constructor(
    private readonly db: DataSource,
    private readonly pubSub: PostgresPubSub,
    private readonly deliveryLog: DeliveryLogService,
    encryptionKeys: EncryptionKey[],
  ) {
    this.secrets = new SigningSecrets(encryptionKeys);
  }

  /**
   * The current secret, and the replaced one while a rotation's overlap runs, as a claim reads them for attempts,
   * with the database's time now: what a forward is signed with and stamped by (webhook-timestamp), as an attempt
   * is by its claim's clock. An API process whose own clock is off would sign a timestamp its receiver refuses.
   */
  private async signing(appId: string): Promise<{ sealed: SealedSecrets; now: Date }> {
    const row = await sealedSecretsOf(this.db.manager, appId);
    if (!row) throw new Error(`app ${appId} has no client secret`);
    return { sealed: row, now: row.db_now };
  }

  private headers(
    appId: string,
    { sealed, now }: { sealed: SealedSecrets; now: Date },
    request: { deliveryId: string; eventName: string; attemptNumber: number; body: string; test: boolean },
  ): { name: string; value: string }[] {
    const { secret: clientSecret, previousSecret } = this.secrets.open(appId, sealed, now);
    const { deliveryId, eventName, attemptNumber, body, test } = request;
    const headers = webhookHeaders({ deliveryId, eventName, attemptNumber, body, clientSecret, previousSecret, now });
    if (test) headers['x-platform-test'] = 'true';
    return Object.entries(headers).map(([name, value]) => ({ name, value }));
  }

  /**
   * The delivery's request as its receiver gets it, signed now (so webhook-timestamp is fresh); null
   * unless `principal` owns the app. Not for admins, who may read the log: a freshly signed request is
   * one the app's receiver accepts for its whole replay window, so it is the owner's alone to ask for.
   */
  forwardRequest(principal: Principal, deliveryId: string): Promise<WebhookForwardRequest | null> {
    // Spans of their own when tracing (the forward, the trigger, the local answer): a local forward is no attempt of the delivery's.
    return inSpan(
      'webhook.local_forward',
      () => ({ 'plaza.delivery.id': deliveryId }),
      () => this.signedRequest(principal, deliveryId),
    );
  }

  private async signedRequest(principal: Principal, deliveryId: string): Promise<WebhookForwardRequest | null> {
    const delivery = await this.deliveryLog.get(asOwnerOnly(principal), deliveryId);
    if (!delivery) return null;
    const test = isTestPurchaseId(delivery.purchaseId);
    const body = delivery.payloadText;
    if (body === undefined) throw new Error(`delivery ${delivery.id} was read without its payload`);
    if (body === null) throw webhookErrors.bodyGone();
    return Object.assign(new WebhookForwardRequest(), {
      deliveryId: delivery.id,
      appId: delivery.appId,
      eventName: delivery.eventType,
      test,
      body,
      headers: this.headers(delivery.appId, await this.signing(delivery.appId), {
        deliveryId: delivery.id,
        eventName: delivery.eventType,
        attemptNumber: Math.max(1, delivery.attemptCount),
        body,
        test,
      }),
      createdAt: delivery.createdAt,
    });
  }

  /** A sample event for the app's listening CLI sessions only; recorded in webhook_cli_events, the log of what was triggered. */
  trigger(userId: string, appId: string, type: WebhookEventType, amounts: { amountVnd: number; developerShareVnd: number }): Promise<WebhookForwardRequest> {
    return inSpan(
      'webhook.local_forward.trigger',
      () => ({ 'plaza.webhook.event': EVENT_WIRE_NAME[type] }),
      () => this.recordTrigger(userId, appId, type, amounts),
    );
  }

  private async recordTrigger(userId: string, appId: string, type: WebhookEventType, amounts: { amountVnd: number; developerShareVnd: number }): Promise<WebhookForwardRequest> {
    // Its id, body, signature and log row all on the database's clock, as a real event's delivery is.
    const signing = await this.signing(appId);
    const { now } = signing;
    const id = newWebhookId.delivery(now.getTime());
    const eventName = EVENT_WIRE_NAME[type];
    const body = webhookPayload({ type, appId, userId, purchaseId: newTestPurchaseId(now.getTime()), ...amounts }, now);
    const request = Object.assign(new WebhookForwardRequest(), {
      deliveryId: id,
      appId,
      eventName,
      test: true,
      body,
      headers: this.headers(appId, signing, { deliveryId: id, eventName, attemptNumber: 1, body, test: true }),
      createdAt: now,
    });
    await this.db.transaction(async (manager) => {
      await manager.query(INSERT_TEST_EVENT, [id, appId, eventName, body, userId, now]);
      // Published with the row: listeners hear of it only once it is in the log.
      await this.pubSub.publishIn(manager, Topic.WEBHOOK_TEST_TRIGGERED, appId, { ...request, createdAt: now.toISOString() });
    });
    return request;
  }

  /** Records the local answer; checks the delivery (or triggered event) is one `principal` may see. */
  report(principal: Principal, input: LocalForwardReport): Promise<LocalForward> {
    // The local answer's status, never its error text (the developer's machine wrote it).
    const answer = () => ({
      'plaza.delivery.id': input.deliveryId,
      ...(Number.isInteger(input.statusCode) ? { 'http.response.status_code': input.statusCode! } : {}),
      'plaza.local_forward.duration_ms': input.durationMs,
    });
    return inSpan('webhook.local_forward.report', answer, () => this.recordReport(principal, input));
  }

  private async recordReport(principal: Principal, input: LocalForwardReport): Promise<LocalForward> {
    if (input.statusCode !== null && input.statusCode !== undefined && (!Number.isInteger(input.statusCode) || input.statusCode < 100 || input.statusCode > 599)) {
      throw badInput('statusCode', 'statusCode must be an HTTP status from 100 to 599, or null when the local receiver did not answer');
    }
    if (!Number.isInteger(input.durationMs) || input.durationMs < 0 || input.durationMs > MAX_DURATION_MS)
      throw badInput('durationMs', `durationMs must be a whole number of milliseconds from 0 to ${MAX_DURATION_MS}`);
    if (input.error && input.error.length > MAX_ERROR_LENGTH) throw badInput('error', `error must be at most ${MAX_ERROR_LENGTH} characters`);
    if ((input.statusCode === null || input.statusCode === undefined) && !input.error) throw badInput('error', 'say why there was no answer (error) when statusCode is null');
    const target = await this.target(principal, input.deliveryId);
    const [row] = (await this.db.query(INSERT_FORWARD, [
      `lfw_${ulid()}`,
      input.deliveryId,
      target.appId,
      target.test,
      principal.userId,
      input.statusCode ?? null,
      input.durationMs,
      input.error ?? null,
      new Date(),
    ])) as ForwardRow[];
    return toForward(row!);
  }

  async list(principal: Principal, deliveryId: string): Promise<LocalForward[]> {
    await this.target(principal, deliveryId);
    return ((await this.db.query(FORWARDS, [deliveryId])) as ForwardRow[]).map(toForward);
  }

  private async target(principal: Principal, deliveryId: string): Promise<{ appId: string; test: boolean }> {
    const delivery = await this.deliveryLog.get(principal, deliveryId);
    if (delivery) return { appId: delivery.appId, test: false };
    const [event] = (await this.db.query(TEST_EVENT, [deliveryId])) as { app_id: string }[];
    if (event && (seesEveryApp(principal) || (await appNamesAndOwners(this.db.manager, [event.app_id])).get(event.app_id)?.ownerId === principal.userId))
      return { appId: event.app_id, test: true };
    throw notFound(`Delivery ${deliveryId}`);
  }
}
