import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { WebhookEventType } from '../webhook.types.js';
import { RECEIVABLE_EVENTS, WebhookEndpointState } from './webhook-endpoint.types.js';

/** One place an app's webhook events go: its URL, the events it receives, whether it is sent to, and its pace. */
@ObjectType({ description: 'One destination of an app’s webhook events, with its own events, state and pace; every delivery to it is signed with the app’s client secret' })
@Entity('webhook_endpoints')
@Index('idx_webhook_endpoints_app', ['appId', 'createdAt', 'id'])
export class WebhookEndpoint {
  @Field(() => ID, { description: 'ep_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID, { description: 'The app whose events it receives' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  @Field({ description: 'Where its deliveries are POSTed' })
  @Column({ type: 'text' })
  url: string;

  @Field(() => String, { nullable: true, description: 'What it is for, in its owner’s words' })
  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The GraphQL enum names it receives; null: every event, those Plaza adds later too. */
  @Column({ type: 'text', array: true, name: 'events', nullable: true })
  subscribedEvents: WebhookEventType[] | null;

  @Field(() => WebhookEndpointState, { description: 'ENABLED, PAUSED by its owner, or DISABLED after sustained failure' })
  @Column({ type: 'text', default: WebhookEndpointState.ENABLED })
  state: WebhookEndpointState;

  @Field(() => Int, { nullable: true, description: 'At most this many requests in any second; null: no pace' })
  @Column({ type: 'integer', name: 'rate_limit_per_second', nullable: true })
  rateLimitPerSecond: number | null;

  /** The pace's next free send time (booked by the engine's claims, 1/rateLimitPerSecond apart); null before its first paced request. */
  @Column({ type: 'timestamptz', name: 'pace_next_at', nullable: true })
  paceNextAt: Date | null;

  @Field({ description: 'When it was added' })
  @Column({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;

  @Field(() => [WebhookEventType], { description: 'The events it receives (all of them unless chosen); test events are always sent' })
  get events(): WebhookEventType[] {
    return this.subscribedEvents ?? [...RECEIVABLE_EVENTS];
  }
}
