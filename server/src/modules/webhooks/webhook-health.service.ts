import type { DataSource, EntityManager } from 'typeorm';
import { logger } from '../../platform/logger.js';
import type { Mailer } from '../../platform/mailer.js';
import type { NotificationFields, NotificationService } from '../review/index.js';
import type { IdentityService } from '../identity/index.js';
import { appNamesAndOwners, type AppNameAndOwner } from '../apps/index.js';
import { HOLD_OPEN_OF_ENDPOINTS, type WebhookEndpointsService } from './endpoints/webhook-endpoints.service.js';
import { DeliveryStatus } from './webhook.types.js';

/** Notification kinds of this feature (Notification.kind is a string; the contract names the first two). */
export const WebhookNotice = {
  FAILING: 'WEBHOOK_FAILING',
  DISABLED: 'WEBHOOK_DISABLED',
  RECOVERED: 'WEBHOOK_RECOVERED',
} as const;

/** At most one WEBHOOK_FAILING per endpoint in this long, however often it fails and recovers. */
const ALERT_INTERVAL = '1 day';
/** Sweeps asked for by result writes run at most this often (a dead endpoint fails every batch). */
const SWEEP_SPACING_MS = 500;

/**
 * Runs are kept per endpoint (webhook_endpoint_health); the apps' names and owners are read through apps'
 * index, and endpoints are disabled through the endpoints' service, which keeps the app's webhook state
 * (App.webhookState: DISABLED once no endpoint of the app is enabled) in the sweep's transaction.
 */

/** Runs of failure that lasted $1 ms with a delivery that gave up: their endpoints are to be disabled (if still enabled). */
const LONG_FAILING = `SELECT endpoint_id, app_id, failing_since, last_error FROM webhook_endpoint_health
   WHERE failed_deliveries > 0 AND failing_since <= clock_timestamp() - $1 * interval '1 millisecond'`;

/** A run with a delivery that gave up, not alerted within ALERT_INTERVAL. */
const TO_ALERT = `h.failing_since IS NOT NULL AND h.failed_deliveries > 0
     AND (h.alerted_at IS NULL OR h.alerted_at <= clock_timestamp() - interval '${ALERT_INTERVAL}')`;
/** An alerted run that a success has ended. */
const TO_CLOSE = 'h.alert_open AND h.failing_since IS NULL';

/**
 * The rows ALERT_FAILING and CLOSE_RECOVERED may change, locked in one pass in key order (the LockRows step runs
 * above the sort), as the result write locks the health rows of its batch (endpoint-health-sql.ts). Each UPDATE
 * on its own locked its rows in the order it read them (the table's pages), and the two one after the other:
 * a result write holding one of them and waiting for another that the sweep held made PostgreSQL abort the
 * sweep (40P01). A row that comes to qualify after this step is the next sweep's: the result write that
 * changed it asks for one.
 */
const LOCK_RUNS_TO_SWEEP = `SELECT h.endpoint_id FROM webhook_endpoint_health h
   WHERE (${TO_ALERT}) OR (${TO_CLOSE})
   ORDER BY h.endpoint_id
     FOR NO KEY UPDATE`;

/** Of the locked runs ($2), those of endpoints not paused or disabled ($1) that TO_ALERT takes: alerted now. */
const ALERT_FAILING = `UPDATE webhook_endpoint_health h SET alerted_at = clock_timestamp(), alert_open = true
   WHERE h.endpoint_id = ANY($2::text[]) AND h.endpoint_id <> ALL($1::text[]) AND ${TO_ALERT}
     AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = h.endpoint_id)
  RETURNING h.endpoint_id, h.app_id, h.failing_since, h.last_error, h.failed_deliveries`;

/** Of the locked runs ($1), the alerted ones a success has ended: told once. */
const CLOSE_RECOVERED = `UPDATE webhook_endpoint_health h SET alert_open = false
   WHERE h.endpoint_id = ANY($1::text[]) AND ${TO_CLOSE}
  RETURNING h.endpoint_id, h.app_id, h.recovered_at`;

/** The rows an UPDATE ... RETURNING gave back (TypeORM answers an UPDATE with [rows, count]). */
async function updated<T>(manager: EntityManager, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const [rows]: [T[], number] = await manager.query(sql, parameters);
  return rows;
}

/** The runs' apps named and with their owners (apps that no longer exist are left out). */
async function named<T extends { app_id: string }>(manager: EntityManager, rows: T[]): Promise<(T & AppNameAndOwner)[]> {
  if (rows.length === 0) return [];
  const apps = await appNamesAndOwners(
    manager,
    rows.map((row) => row.app_id),
  );
  return rows.flatMap((row) => {
    const app = apps.get(row.app_id);
    return app ? [{ ...row, ...app }] : [];
  });
}

/**
 * Failure alerts and the automatic disable, so a developer hears of a failing receiver before their users do. The
 * engine's result write keeps each endpoint's run of failures (webhook_endpoint_health); this sweep, asked for by that write when something changed and run by
 * the recovery job every 15 seconds, turns the runs into notifications: WEBHOOK_FAILING when a
 * delivery gave up (at most once a day per endpoint), WEBHOOK_RECOVERED when deliveries succeed again,
 * WEBHOOK_DISABLED after WEBHOOK_DISABLE_AFTER of failure. Each step claims its rows with one UPDATE,
 * so several workers sweeping at once notify once.
 */
export class WebhookHealthService {
  private sweeping: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly db: DataSource,
    private readonly notifications: NotificationService,
    private readonly mailer: Mailer,
    private readonly identity: IdentityService,
    private readonly endpoints: WebhookEndpointsService,
    private readonly options: { disableAfterMs: number; platformOrigin: string },
  ) {}

  /** A result write changed a run: sweep soon (one at a time, spaced), off the delivery path. */
  readonly check = (): void => {
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = (async () => {
      do {
        this.again = false;
        await this.sweep().catch((err) => logger.error({ err }, 'webhook health sweep failed; the next one will try again'));
        await new Promise((resolve) => setTimeout(resolve, SWEEP_SPACING_MS));
      } while (this.again);
    })().finally(() => (this.sweeping = undefined));
  };

  /** The Webhook Logs of one app's given-up deliveries, as the portal routes them. */
  logsLink(appId: string): string {
    return `${this.options.platformOrigin}/developer/webhooks?appId=${encodeURIComponent(appId)}&status=${DeliveryStatus.FAILED}`;
  }

  async sweep(): Promise<void> {
    const mails: { ownerId: string; subject: string; text: string }[] = [];
    await this.db.transaction(async (manager) => {
      const long = await manager.query<{ endpoint_id: string; app_id: string; failing_since: Date; last_error: string | null }[]>(LONG_FAILING, [this.options.disableAfterMs]);
      const runs = new Map(long.map((run) => [run.endpoint_id, run]));
      const disabled = await named(
        manager,
        (await this.endpoints.disable(manager, [...runs.keys()])).map((endpoint) => ({ ...runs.get(endpoint.id)!, url: endpoint.url })),
      );
      const off = await this.endpoints.notEnabled(manager);
      if (off.length > 0) await manager.query(HOLD_OPEN_OF_ENDPOINTS, [off]);
      for (const run of disabled) {
        const text =
          `Plaza stopped sending "${run.name}" its webhook events at ${run.url}: deliveries have failed since ${run.failing_since.toISOString()} with no success in between. ` +
          `Last error: ${run.last_error ?? 'unknown'}. New events are recorded but not sent there. Fix the endpoint, press Enable in Webhook Logs, then recover the failed deliveries: ${this.logsLink(run.id)}`;
        const facts = { since: run.failing_since, lastError: run.last_error };
        await this.notify(manager, run, WebhookNotice.DISABLED, text, `Webhook disabled: ${run.name}`, mails, facts);
      }
      const locked = (await manager.query<{ endpoint_id: string }[]>(LOCK_RUNS_TO_SWEEP)).map((row) => row.endpoint_id);
      const failingRuns = await updated<{ endpoint_id: string; app_id: string; failing_since: Date; last_error: string | null; failed_deliveries: number }>(
        manager,
        ALERT_FAILING,
        [off, locked],
      );
      const urls = await this.endpoints.findMany(failingRuns.map((run) => run.endpoint_id));
      for (const run of await named(manager, failingRuns)) {
        const gaveUp = run.failed_deliveries === 1 ? '1 delivery' : `${run.failed_deliveries} deliveries`;
        const text =
          `Webhook deliveries of "${run.name}" to ${urls.get(run.endpoint_id)?.url ?? 'its endpoint'} are failing: ${gaveUp} gave up after every retry. Failing since ${run.failing_since.toISOString()}; ` +
          `last error: ${run.last_error ?? 'unknown'}. See the failed deliveries: ${this.logsLink(run.id)}`;
        const facts = { since: run.failing_since, lastError: run.last_error, failedDeliveries: run.failed_deliveries };
        await this.notify(manager, run, WebhookNotice.FAILING, text, `Webhook failing: ${run.name}`, mails, facts);
      }
      const recovered = await named(manager, await updated<{ endpoint_id: string; app_id: string; recovered_at: Date | null }>(manager, CLOSE_RECOVERED, [locked]));
      for (const run of recovered) {
        const text = `Webhook deliveries of "${run.name}" succeed again${run.recovered_at ? ` (since ${run.recovered_at.toISOString()})` : ''}. Deliveries that failed meanwhile can be sent again with "Recover failed since…": ${this.logsLink(run.id)}`;
        await this.notify(manager, run, WebhookNotice.RECOVERED, text, `Webhook recovered: ${run.name}`, mails, { since: run.recovered_at });
      }
    });
    this.email(mails);
  }

  private async notify(
    manager: EntityManager,
    app: AppNameAndOwner,
    kind: string,
    message: string,
    subject: string,
    mails: { ownerId: string; subject: string; text: string }[],
    facts: Pick<NotificationFields, 'since' | 'lastError' | 'failedDeliveries'>,
  ): Promise<void> {
    // The facts beside the English message let the portal say it in the reader's language.
    await this.notifications.notify(manager, app.ownerId, { kind, message, appId: app.id, appName: app.name, ...facts });
    mails.push({ ownerId: app.ownerId, subject, text: message });
  }

  /** After commit and off the sweep: the e-mail is a courtesy copy of the notification. */
  private email(mails: { ownerId: string; subject: string; text: string }[]): void {
    if (!this.mailer.enabled || mails.length === 0) return;
    // Never rejects: a failed e-mail is logged by the catch below (the notifications are already stored).
    void (async () => {
      for (const mail of mails) {
        const owner = await this.identity.findAccount(mail.ownerId);
        if (owner) await this.mailer.send(owner.email, mail.subject, mail.text);
      }
    })().catch((err) => logger.warn({ err }, 'webhook health e-mail failed'));
  }

  /** The owner's enableWebhook: every endpoint of the app disabled after failure is sent to again, and a new run of failures starts from nothing. */
  async enable(appId: string): Promise<void> {
    await this.endpoints.enableDisabledOf(appId);
  }
}
