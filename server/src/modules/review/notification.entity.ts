import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { RejectionReason } from './review.types.js';

@ObjectType({ description: 'A message to you in the portal, e.g. a review decision on one of your apps' })
@Entity('notifications')
@Index('idx_notifications_user', ['userId', 'id'])
export class Notification {
  @Field(() => ID, { description: 'ntf_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Column({ type: 'text', name: 'user_id' })
  userId: string;

  /** APP_APPROVED or APP_REJECTED today; a string so new kinds need no schema change. */
  @Field({ description: 'What happened, e.g. APP_APPROVED, APP_REJECTED, or PURCHASE_REFUNDED (to the buyer); a string, so new kinds can appear' })
  @Column({ type: 'text' })
  kind: string;

  @Field({
    description:
      'The text to show, written for people in English; clients that translate write it from kind and the facts beside it (appName, reasons, ...), and show this for kinds they do not know',
  })
  @Column({ type: 'text' })
  message: string;

  @Field(() => ID, { nullable: true, description: 'The app it is about; null when it is about no app' })
  @Column({ type: 'text', name: 'app_id', nullable: true })
  appId: string | null;

  // The facts the message was written from, so a client can say it in its reader's language; null on
  // notifications older than the facts (then show message) and where a kind has no such fact.
  @Field(() => String, { nullable: true, description: 'The name of the app it is about, as it was when sent; null when it is about no app or was sent before names were kept' })
  @Column({ type: 'text', name: 'app_name', nullable: true })
  appName: string | null;

  @Field(() => [RejectionReason], { nullable: true, description: 'APP_REJECTED: the reasons the reviewer gave; null for other kinds' })
  @Column({ type: 'text', array: true, nullable: true })
  reasons: RejectionReason[] | null;

  @Field(() => String, {
    nullable: true,
    description: 'APP_REJECTED: the reviewer’s note, as written; PURCHASE_REFUNDED: the admin’s reason for the refund; null when there is none',
  })
  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Field(() => Date, { nullable: true, description: 'WEBHOOK_FAILING and WEBHOOK_DISABLED: when the run of failures began; WEBHOOK_RECOVERED: when deliveries succeeded again' })
  @Column({ type: 'timestamptz', nullable: true })
  since: Date | null;

  @Field(() => String, { nullable: true, description: 'WEBHOOK_FAILING and WEBHOOK_DISABLED: the last error of the endpoint, as recorded (e.g. "HTTP 500")' })
  @Column({ type: 'text', name: 'last_error', nullable: true })
  lastError: string | null;

  @Field(() => Int, { nullable: true, description: 'WEBHOOK_FAILING: how many deliveries gave up after every retry' })
  @Column({ type: 'integer', name: 'failed_deliveries', nullable: true })
  failedDeliveries: number | null;

  @Field(() => Int, { nullable: true, description: 'PURCHASE_REFUNDED: how many points came back to your balance; null for other kinds and older refunds' })
  @Column({ type: 'integer', nullable: true })
  points: number | null;

  @Field({ description: 'When it was sent' })
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field(() => Date, { nullable: true, description: 'When you marked it read; null while unread' })
  @Column({ type: 'timestamptz', name: 'read_at', nullable: true })
  readAt: Date | null;
}
