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
  @IsSearchableTime()
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created at or before' })
  @IsSearchableTime()
  until?: Date | null;
}
