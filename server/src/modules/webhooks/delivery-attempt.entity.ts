import { Field, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One HTTP try of a delivery, as recorded once it ended (with its outcome, or closed as interrupted). While in flight
 * it is a row of webhook_open_attempts, so that an interrupted one is still on record; the log reads both
 * (delivery/log-queries.ts). Rows of the previous release may still be open here (`finished` false).
 */
@ObjectType({ description: 'One HTTP request of a delivery to the webhook URL, recorded when it starts' })
@Entity('webhook_attempts')
// Built partition by partition after the migrations (platform/migrations/concurrent-indexes.ts).
@Index('idx_webhook_attempts_open', ['deliveryId'], { where: 'NOT finished' })
export class DeliveryAttempt {
  @PrimaryColumn({ type: 'text', name: 'delivery_id' })
  deliveryId: string;

  /** 1 = first attempt */
  @Field(() => Int, { description: '1 = first attempt; sent as X-Platform-Attempt' })
  @PrimaryColumn({ type: 'integer' })
  number: number;

  /** SCHEDULED or MANUAL */
  @Field({ description: 'SCHEDULED (the first attempt and retries) or MANUAL (redeliverWebhook)' })
  @Column({ type: 'text' })
  trigger: string;

  @Field({ description: 'When the request started' })
  @Column({ type: 'timestamptz', name: 'started_at' })
  startedAt: Date;

  /** Null while the attempt is in flight. */
  @Column({ type: 'integer', name: 'duration_ms', nullable: true })
  durationMsOrNull: number | null;

  @Field(() => Int, { nullable: true, description: 'Null when no response (timeout, refused, blocked)' })
  @Column({ type: 'integer', name: 'status_code', nullable: true })
  statusCode: number | null;

  @Field(() => String, { nullable: true, description: 'Why it failed, when it did' })
  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Field(() => String, { nullable: true, description: 'First 1 KiB of the response body at most' })
  @Column({ type: 'text', name: 'response_body_excerpt', nullable: true })
  responseBodyExcerpt: string | null;

  /**
   * As stored: null for an attempt sent to its delivery's usual URL (kept once, webhook_request_headers.url;
   * delivery/request-headers-sql.ts urlToKeep); as read (ATTEMPTS_OF_DELIVERIES), where it was sent.
   */
  @Field(() => String, { nullable: true, description: 'Where the attempt was sent' })
  @Column({ type: 'text', nullable: true })
  url: string | null;

  /**
   * What this attempt's request headers add to those expected and shared by its delivery's attempts
   * (webhook_request_headers; delivery/request-headers-sql.ts says how): in practice the timestamped
   * signature alone, which is kept in requestSignature instead. Null when nothing was sent.
   */
  @Column({ type: 'jsonb', name: 'request_headers', nullable: true })
  requestHeaderChanges: Record<string, string | null> | null;

  /**
   * The usual case of the above, compactly: when all an attempt adds is its one `v1,` signature,
   * its 32 bytes, and request_headers is null (about 33 bytes instead of 80; request-headers.ts compactSignature).
   */
  @Column({ type: 'bytea', name: 'request_signature', nullable: true })
  requestSignature: Buffer | null;

  /** The request headers exactly as sent, so a developer can reproduce the signature check; composed when read (ATTEMPTS_OF_DELIVERIES). */
  requestHeaders?: Record<string, string> | null;

  /** Whether the attempt has an outcome; false only while in flight or when interrupted and not yet closed. */
  @Column({ type: 'boolean', default: false })
  finished: boolean;
}
