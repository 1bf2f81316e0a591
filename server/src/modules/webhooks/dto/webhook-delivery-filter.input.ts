import { Field, ID, InputType } from 'type-graphql';
import { ValidateBy } from 'class-validator';
import { DeliveryStatus, WebhookEventType } from '../webhook.types.js';

/** Delivery ids are ULIDs, so the log can only be searched by times a ULID can carry. */
const ULID_TIME_MAX = 2 ** 48 - 1;

/** PostgreSQL text cannot hold NUL: such a value matches nothing, and would fail the query rather than say so. */
const HasNoNul = () =>
  ValidateBy({ name: 'hasNoNul', validator: { validate: (v) => typeof v !== 'string' || !v.includes('\u0000'), defaultMessage: (args) => `${args?.property} must not contain NUL characters` } });

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
  @HasNoNul()
  appId?: string | null;

  @Field(() => DeliveryStatus, { nullable: true })
  status?: DeliveryStatus | null;

  @Field(() => WebhookEventType, { nullable: true })
  event?: WebhookEventType | null;

  @Field(() => String, { nullable: true })
  @HasNoNul()
  purchaseId?: string | null;

  @Field(() => Date, { nullable: true, description: 'Created at or after' })
  @IsSearchableTime()
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Created at or before' })
  @IsSearchableTime()
  until?: Date | null;
}
