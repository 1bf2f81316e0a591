import { ValidateBy } from 'class-validator';
import { Field, InputType, Int } from 'type-graphql';
import { IsWebhookUrl } from '../../apps/index.js';
import { WebhookEventType } from '../webhook.types.js';
import { RECEIVABLE_EVENTS } from './webhook-endpoint.types.js';

/** Long enough for "Billing service (production), receives purchases and refunds"; shown in lists. */
export const DESCRIPTION_MAX = 200;
/** A pace above this is no pace at all for one receiver; a typo of 10,000 should not pass for a limit. */
export const RATE_LIMIT_MAX = 1_000;

const check = (name: string, problem: (value: unknown) => string | undefined) =>
  ValidateBy({ name, validator: { validate: (value) => problem(value) === undefined, defaultMessage: (args) => `${args?.property} ${problem(args?.value)}` } });

const IsEndpointEvents = () =>
  check('endpointEvents', (v) => {
    if (v === null || v === undefined) return undefined;
    if (!Array.isArray(v) || v.length === 0) return `must name at least one of ${RECEIVABLE_EVENTS.join(', ')} (leave it out to receive every event)`;
    const other = v.find((event) => !RECEIVABLE_EVENTS.includes(event));
    if (other !== undefined) return `cannot include ${String(other)}: choose from ${RECEIVABLE_EVENTS.join(', ')} (test events are always sent)`;
    return undefined;
  });

const IsDescription = () =>
  check('endpointDescription', (v) => {
    if (v === null || v === undefined) return undefined;
    if (typeof v !== 'string') return 'must be text';
    if ([...v].length > DESCRIPTION_MAX) return `must be at most ${DESCRIPTION_MAX} characters (it has ${[...v].length})`;
    if (/[\r\n]/.test(v)) return 'must be one line';
    return undefined;
  });

const IsRateLimit = () =>
  check('rateLimitPerSecond', (v) =>
    v === null || v === undefined || (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= RATE_LIMIT_MAX)
      ? undefined
      : `must be a whole number from 1 to ${RATE_LIMIT_MAX} (leave it out for no pace)`,
  );

@InputType({ description: 'An endpoint as its owner sets it; every field is written (an update replaces them all)' })
export class WebhookEndpointInput {
  // The same shape rule as the app form's Webhook URL; https and internal addresses are the service's checks (they depend on configuration).
  @Field({ description: 'Where to POST its deliveries: https (http and internal addresses only where WEBHOOK_ALLOW_PRIVATE_URLS allows them)' })
  @IsWebhookUrl()
  url: string;

  @Field(() => String, { nullable: true, description: `What it is for; at most ${DESCRIPTION_MAX} characters, one line` })
  @IsDescription()
  description?: string | null;

  @Field(() => [WebhookEventType], { nullable: true, description: 'The events it receives; all of them (those added later too) when not given' })
  @IsEndpointEvents()
  events?: WebhookEventType[] | null;

  @Field(() => Int, { nullable: true, description: `At most this many requests in any second (1-${RATE_LIMIT_MAX}); no pace when not given` })
  @IsRateLimit()
  rateLimitPerSecond?: number | null;
}
