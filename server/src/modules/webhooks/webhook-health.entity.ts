import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One endpoint's run of failed webhook attempts: kept up by the engine's result write (a row appears with
 * the first failure; a success ends the run), read by the health sweep that alerts the developer and
 * disables an endpoint that keeps failing. Not in the API: notifications and WebhookEndpoint.state say
 * what matters. (webhook_health, the same per app, is what the release before endpoints kept.)
 */
@Entity('webhook_endpoint_health')
export class WebhookEndpointHealth {
  @PrimaryColumn({ type: 'text', name: 'endpoint_id' })
  endpointId: string;

  /** Its app: whom to tell, and where its log is. */
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  /** The first failed attempt with no success since; null while deliveries succeed. */
  @Column({ type: 'timestamptz', name: 'failing_since', nullable: true })
  failingSince: Date | null;

  @Column({ type: 'timestamptz', name: 'last_failure_at', nullable: true })
  lastFailureAt: Date | null;

  @Column({ type: 'text', name: 'last_error', nullable: true })
  lastError: string | null;

  /** Deliveries that ended FAILED (every scheduled attempt) during this run: what makes it an alert. */
  @Column({ type: 'integer', name: 'failed_deliveries', default: 0 })
  failedDeliveries: number;

  /** The last WEBHOOK_FAILING notification: at most one a day, across runs. */
  @Column({ type: 'timestamptz', name: 'alerted_at', nullable: true })
  alertedAt: Date | null;

  /** The developer was told of this run and not yet that it ended. */
  @Column({ type: 'boolean', name: 'alert_open', default: false })
  alertOpen: boolean;

  /** The success that ended the last run. */
  @Column({ type: 'timestamptz', name: 'recovered_at', nullable: true })
  recoveredAt: Date | null;
}
