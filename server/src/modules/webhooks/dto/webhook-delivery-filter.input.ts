import { Field, ID, InputType } from 'type-graphql';
import { DeliveryStatus, WebhookEventType } from '../webhook.types.js';

@InputType()
export class WebhookDeliveryFilter {
  @Field(() => ID, { nullable: true })
  appId?: string | null;

  @Field(() => DeliveryStatus, { nullable: true })
  status?: DeliveryStatus | null;

  @Field(() => WebhookEventType, { nullable: true })
  event?: WebhookEventType | null;

  @Field(() => String, { nullable: true })
  purchaseId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created at or before' })
  until?: Date | null;
}
