import { Field, ID, Int, ObjectType } from 'type-graphql';
import { WebhookHeader } from './webhook.resolver.js';

@ObjectType({ description: 'A webhook request exactly as the app’s receiver gets it, for `plaza listen` to send to a local URL' })
export class WebhookForwardRequest {
  @Field(() => ID, { description: 'dlv_<ULID>: the delivery (or, for a triggered test event, its own id); sent as X-Platform-Delivery and webhook-id' })
  deliveryId: string;

  @Field(() => ID, { description: 'The app (app_<ULID>)' })
  appId: string;

  @Field({ description: 'The wire value, e.g. "app.purchased"' })
  eventName: string;

  @Field({ description: 'A triggered sample event (triggerWebhookEvent): sent only to listening CLI sessions, never to the webhook URL; carries X-Platform-Test: true' })
  test: boolean;

  @Field({ description: 'The exact body bytes (UTF-8 JSON)' })
  body: string;

  @Field(() => [WebhookHeader], { description: 'Every request header, signed now with the app’s current secret(s) as a delivery attempt would be' })
  headers: WebhookHeader[];

  @Field({ description: 'When the delivery (or test event) was made' })
  createdAt: Date;

  @Field(() => Int, {
    nullable: true,
    description:
      'A triggered event (triggerWebhookEvent): the plaza listen sessions it was sent to, on every API process (those of other processes as they answer within half a second); 0 when none listened. Null for a delivery',
  })
  recipients?: number | null;
}

@ObjectType({ description: 'What a developer’s local receiver answered when `plaza listen` forwarded a delivery to it; never changes the delivery itself' })
export class LocalForward {
  @Field(() => ID, { description: 'lfw_<ULID>' })
  id: string;

  @Field(() => ID, { description: 'The delivery (or triggered test event) forwarded' })
  deliveryId: string;

  @Field(() => ID, { description: 'The app (app_<ULID>)' })
  appId: string;

  @Field({ description: 'A triggered test event, not a delivery' })
  test: boolean;

  @Field(() => Int, { nullable: true, description: 'HTTP status the local receiver answered; null when it did not answer' })
  statusCode: number | null;

  @Field(() => Int, { description: 'How long the local request took' })
  durationMs: number;

  @Field(() => String, { nullable: true, description: 'Why there was no answer (connection refused, timeout)' })
  error: string | null;

  @Field({ description: 'When it was reported' })
  createdAt: Date;
}
