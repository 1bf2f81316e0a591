import { Field, ID, InputType } from 'type-graphql';
import { ValidateBy } from 'class-validator';
import { DeliveryStatus, WebhookEventType } from '../webhook.types.js';

/** Delivery ids are ULIDs, so the log can only be searched by times a ULID can carry. */
const ULID_TIME_MAX = 2 ** 48 - 1;

const IsSearchableTime = () =>
  ValidateBy({
    name: 'isSearchableTime',
    validator: {
      validate: (v) => v === null || v === undefined || (v instanceof Date && v.getTime() >= 0 && v.getTime() <= ULID_TIME_MAX),
      defaultMessage: (args) => `${args?.property} must be a time on or after 1970-01-01T00:00:00Z`,
    },
  });

@InputType({ description: 'Narrows webhookDeliveries; the conditions given must all hold' })
export class WebhookDeliveryFilter {
  @Field(() => ID, { nullable: true, description: 'Only this app’s deliveries (app_<ULID>)' })
  appId?: string | null;

  @Field(() => ID, { nullable: true, description: 'Only the deliveries to this endpoint (ep_<ULID>), deleted ones included' })
  endpointId?: string | null;

  @Field(() => DeliveryStatus, { nullable: true, description: 'Only deliveries in this status' })
  status?: DeliveryStatus | null;

  @Field(() => WebhookEventType, { nullable: true, description: 'Only this event type' })
  event?: WebhookEventType | null;

  @Field(() => String, { nullable: true, description: 'Only the deliveries of this purchase (APP-<ms>-<suffix>)' })
  purchaseId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after this time' })
  @IsSearchableTime()
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created at or before this time' })
  @IsSearchableTime()
  until?: Date | null;
}
