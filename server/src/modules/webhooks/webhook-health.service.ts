import type { DataSource, EntityManager } from 'typeorm';
import { logger } from '../../platform/logger.js';
import type { Mailer } from '../../platform/mailer.js';
import type { NotificationFields, NotificationService } from '../review/index.js';
import type { IdentityService } from '../identity/index.js';
import { appNamesAndOwners, appsWithWebhookDisabled, disableWebhooks, enableWebhook, type AppNameAndOwner } from '../apps/index.js';
import { DeliveryEvent } from './delivery/delivery-lifecycle.js';
import { transitionSql } from './delivery/delivery-lifecycle-sql.js';
import { DeliveryStatus } from './webhook.types.js';

/** Notification kinds of this feature (Notification.kind is a string; the contract names the first two). */
export const WebhookNotice = {
  FAILING: 'WEBHOOK_FAILING',
  DISABLED: 'WEBHOOK_DISABLED',
  RECOVERED: 'WEBHOOK_RECOVERED',
} as const;

/** At most one WEBHOOK_FAILING per app in this long, however often its endpoint fails and recovers. */
const ALERT_INTERVAL = '1 day';
/** Sweeps asked for by result writes run at most this often (a dead endpoint fails every batch). */
const SWEEP_SPACING_MS = 500;

/**
 * The apps table (webhook_state, name, owner) is the apps feature's: this sweep reads and writes it through
 * apps' index (disableWebhooks, appsWithWebhookDisabled, appNamesAndOwners), in the sweep's transaction.
 */

/** Runs of failure that lasted $1 ms with a delivery that gave up: their apps are to be disabled (if still enabled). */
const LONG_FAILING = `SELECT app_id, failing_since, last_error FROM webhook_health
   WHERE failed_deliveries > 0 AND failing_since <= clock_timestamp() - $1 * interval '1 millisecond'`;

const HOLD = transitionSql(DeliveryEvent.WEBHOOK_DISABLED, 'd');
/**
 * Open deliveries of the disabled apps $1 that no worker holds: HELD (stored FAILED with the reason, no next
 * attempt), to be sent by recovery. Catches what was queued when the app was disabled and any retry written since.
 */
const HOLD_OPEN_OF_DISABLED = `UPDATE webhook_deliveries d
     SET ${HOLD.set}, updated_at = clock_timestamp()
   WHERE d.app_id = ANY($1::text[]) AND d.next_attempt_at IS NOT NULL AND ${HOLD.where}
     AND (d.claim_expires_at IS NULL OR d.claim_expires_at < clock_timestamp())
  RETURNING d.id`;

/** Runs with a delivery that gave up, of apps not disabled ($1), not alerted within ALERT_INTERVAL: alerted now. */
const ALERT_FAILING = `UPDATE webhook_health h SET alerted_at = clock_timestamp(), alert_open = true
   WHERE h.app_id <> ALL($1::text[]) AND h.failing_since IS NOT NULL AND h.failed_deliveries > 0
     AND (h.alerted_at IS NULL OR h.alerted_at <= clock_timestamp() - interval '${ALERT_INTERVAL}')
  RETURNING h.app_id, h.failing_since, h.last_error, h.failed_deliveries`;

/** Alerted runs that a success has ended: told once. */
const CLOSE_RECOVERED = `UPDATE webhook_health h SET alert_open = false
   WHERE h.alert_open AND h.failing_since IS NULL
  RETURNING h.app_id, h.recovered_at`;

/** The rows an UPDATE ... RETURNING gave back (TypeORM answers an UPDATE with [rows, count]). */
async function updated<T>(manager: EntityManager, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const [rows]: [T[], number] = await manager.query(sql, parameters);
  return rows;
}

/** The runs' apps named and with their owners (apps that no longer exist are left out). */
async function named<T extends { app_id: string }>(manager: EntityManager, rows: T[]): Promise<(T & AppNameAndOwner)[]> {
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
 * Failure alerts and the automatic disable, so a developer hears of a failing receiver before their users do. The engine's result write keeps each app's run
 * of failures (webhook_health); this sweep, asked for by that write when something changed and run by
 * the recovery job every 15 seconds, turns the runs into notifications: WEBHOOK_FAILING when a
 * delivery gave up (at most once a day per app), WEBHOOK_RECOVERED when deliveries succeed again,
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
      const long = await manager.query<{ app_id: string; failing_since: Date; last_error: string | null }[]>(LONG_FAILING, [this.options.disableAfterMs]);
      const runs = new Map(long.map((run) => [run.app_id, run]));
      const disabled = (await disableWebhooks(manager, [...runs.keys()])).map((app) => ({ ...app, ...runs.get(app.id)! }));
      const off = await appsWithWebhookDisabled(manager);
      if (off.length > 0) await manager.query(HOLD_OPEN_OF_DISABLED, [off]);
      for (const app of disabled) {
        const text =
          `Plaza stopped sending "${app.name}" its webhook events: deliveries have failed since ${app.failing_since.toISOString()} with no success in between. ` +
          `Last error: ${app.last_error ?? 'unknown'}. New events are recorded but not sent. Fix the endpoint, press Enable in Webhook Logs, then recover the failed deliveries: ${this.logsLink(app.id)}`;
        const facts = { since: app.failing_since, lastError: app.last_error };
        await this.notify(manager, app, WebhookNotice.DISABLED, text, `Webhook disabled: ${app.name}`, mails, facts);
      }
      const failing = await named(
        manager,
        await updated<{ app_id: string; failing_since: Date; last_error: string | null; failed_deliveries: number }>(manager, ALERT_FAILING, [off]),
      );
      for (const app of failing) {
        const gaveUp = app.failed_deliveries === 1 ? '1 delivery' : `${app.failed_deliveries} deliveries`;
        const text =
          `Webhook deliveries of "${app.name}" are failing: ${gaveUp} gave up after every retry. Failing since ${app.failing_since.toISOString()}; ` +
          `last error: ${app.last_error ?? 'unknown'}. See the failed deliveries: ${this.logsLink(app.id)}`;
        const facts = { since: app.failing_since, lastError: app.last_error, failedDeliveries: app.failed_deliveries };
        await this.notify(manager, app, WebhookNotice.FAILING, text, `Webhook failing: ${app.name}`, mails, facts);
      }
      const recovered = await named(manager, await updated<{ app_id: string; recovered_at: Date | null }>(manager, CLOSE_RECOVERED));
      for (const app of recovered) {
        const text = `Webhook deliveries of "${app.name}" succeed again${app.recovered_at ? ` (since ${app.recovered_at.toISOString()})` : ''}. Deliveries that failed meanwhile can be sent again with "Recover failed since…": ${this.logsLink(app.id)}`;
        await this.notify(manager, app, WebhookNotice.RECOVERED, text, `Webhook recovered: ${app.name}`, mails, { since: app.recovered_at });
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
    void (async () => {
      for (const mail of mails) {
        const owner = await this.identity.findAccount(mail.ownerId);
        if (owner) await this.mailer.send(owner.email, mail.subject, mail.text);
      }
    })().catch((err) => logger.warn({ err }, 'webhook health e-mail failed'));
  }

  /** The owner's enableWebhook: delivery of new events resumes, and a new run of failures starts from nothing. */
  async enable(appId: string): Promise<void> {
    await this.db.transaction(async (manager) => {
      await enableWebhook(manager, appId);
      await manager.query('UPDATE webhook_health SET failing_since = NULL, failed_deliveries = 0, alert_open = false WHERE app_id = $1', [appId]);
    });
  }
}
