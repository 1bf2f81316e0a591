import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { SafeInt } from '../../platform/int64.js';
import { WebhookState } from '../webhooks/index.js';

/** The window of webhookDeliveryStats: hourly buckets over the last 24 hours or 7 days. */
export enum StatsWindow {
  LAST_24_HOURS = 'LAST_24_HOURS',
  LAST_7_DAYS = 'LAST_7_DAYS',
}
registerEnumType(StatsWindow, {
  name: 'StatsWindow',
  description: 'How far back webhookDeliveryStats looks; buckets are one hour each',
  valuesConfig: {
    LAST_24_HOURS: { description: 'The last 24 hours: 24 hourly buckets, the current hour last' },
    LAST_7_DAYS: { description: 'The last 7 days: 168 hourly buckets, the current hour last' },
  },
});

/** Hours in each window, the current (partial) hour included. */
export const WINDOW_HOURS: Record<StatsWindow, number> = { [StatsWindow.LAST_24_HOURS]: 24, [StatsWindow.LAST_7_DAYS]: 168 };

/** The bucket size of developerEarnings. */
export enum EarningsPeriod {
  DAY = 'DAY',
  WEEK = 'WEEK',
  MONTH = 'MONTH',
}
registerEnumType(EarningsPeriod, {
  name: 'EarningsPeriod',
  description: 'The bucket size of developerEarnings (UTC calendar days, ISO weeks from Monday, calendar months)',
  valuesConfig: {
    DAY: { description: 'One bucket per day over the last 30 days' },
    WEEK: { description: 'One bucket per week (from Monday) over the last 12 weeks' },
    MONTH: { description: 'One bucket per calendar month over the last 12 months' },
  },
});

/** date_trunc's unit and how many buckets, per period. */
export const PERIOD_BUCKETS: Record<EarningsPeriod, { unit: 'day' | 'week' | 'month'; count: number }> = {
  [EarningsPeriod.DAY]: { unit: 'day', count: 30 },
  [EarningsPeriod.WEEK]: { unit: 'week', count: 12 },
  [EarningsPeriod.MONTH]: { unit: 'month', count: 12 },
};

@ObjectType({ description: 'Webhook attempts that finished in one hour, by outcome' })
export class DeliveryVolumeBucket {
  @Field({ description: 'The start of the hour (UTC)' })
  start: Date;

  @Field(() => Int, { description: 'Attempts that finished in this hour with a 2xx answer' })
  succeeded: number;

  @Field(() => Int, { description: 'Attempts that finished in this hour otherwise: an error, a timeout or a non-2xx answer' })
  failed: number;
}

@ObjectType({ description: 'Webhook delivery health over a window: volume per hour by outcome, success rate, attempt latency' })
export class WebhookDeliveryStats {
  @Field(() => StatsWindow, { description: 'The window these numbers cover' })
  window: StatsWindow;

  @Field(() => [DeliveryVolumeBucket], { description: 'One bucket per hour, oldest first, zero-filled: 24 or 168' })
  buckets: DeliveryVolumeBucket[];

  @Field(() => Float, { nullable: true, description: 'succeeded / (succeeded + failed) over the window, 0..1; null when there were no attempts' })
  successRate: number | null;

  @Field(() => Int, {
    nullable: true,
    description: 'Median attempt duration over the window in ms (from a log-spaced histogram: within about 10%); null when there were no attempts',
  })
  latencyP50Ms: number | null;

  @Field(() => Int, {
    nullable: true,
    description: '95th percentile of attempt duration over the window in ms (from a log-spaced histogram: within about 10%); null when there were no attempts',
  })
  latencyP95Ms: number | null;

  @Field(() => WebhookState, { nullable: true, description: 'Whether the app’s webhook is enabled or disabled, for one app; null when the numbers cover several apps' })
  webhookState: WebhookState | null;
}

@ObjectType({ description: 'What one period brought a developer’s apps' })
export class EarningsBucket {
  @Field({ description: 'The start of the period (UTC)' })
  start: Date;

  @Field(() => Int, { description: 'Installations made in the period: free installs, purchases and reinstalls' })
  installs: number;

  @Field(() => Int, { description: 'Paid purchases made in the period' })
  purchases: number;

  @Field(() => Int, { description: 'Purchases refunded in the period' })
  refunds: number;

  @Field(() => SafeInt, { description: 'The developer’s share of the period’s sales minus the share given back by its refunds, in VND' })
  netEarningsVnd: number;
}

@ObjectType({ description: 'A developer’s installs, purchases, refunds and net earnings over time' })
export class DeveloperEarnings {
  @Field(() => EarningsPeriod, { description: 'The bucket size' })
  period: EarningsPeriod;

  @Field(() => [EarningsBucket], { description: 'Oldest first, zero-filled: 30 days, 12 weeks or 12 months, the current one last' })
  buckets: EarningsBucket[];

  @Field(() => SafeInt, { description: 'Net earnings over all the buckets, in VND' })
  totalNetEarningsVnd: number;
}

@ObjectType({ description: 'Webhook attempts of every app that finished in one minute, by outcome' })
export class PlatformDeliveryMinute {
  @Field({ description: 'The start of the minute (UTC)' })
  start: Date;

  @Field(() => Int, { description: 'Attempts that finished in this minute with a 2xx answer' })
  succeeded: number;

  @Field(() => Int, { description: 'Attempts that finished in this minute otherwise (error, timeout, non-2xx)' })
  failed: number;
}

@ObjectType({ description: 'One submission waiting for review, against the 24-hour review promise' })
export class ReviewQueueAge {
  @Field(() => ID, { description: 'The app (app_<ULID>)' })
  appId: string;

  @Field({ description: 'The app’s name as submitted' })
  appName: string;

  @Field({ description: 'When this version was submitted' })
  submittedAt: Date;

  @Field(() => Float, { description: 'Hours since submission' })
  waitingHours: number;

  @Field({ description: 'Waiting longer than the 24-hour review promise' })
  overdue: boolean;
}

@ObjectType({ description: 'An app whose webhook attempts failed in the last 24 hours' })
export class FailingApp {
  @Field(() => ID, { description: 'The app (app_<ULID>)' })
  appId: string;

  @Field({ description: 'The app’s name' })
  appName: string;

  @Field(() => Int, { description: 'Attempts that failed in the last 24 hours' })
  failedAttempts: number;

  @Field(() => Int, { description: 'All attempts that finished in the last 24 hours' })
  attempts: number;

  @Field(() => Float, { description: 'failedAttempts / attempts, 0..1' })
  failureRate: number;
}

@ObjectType({ description: 'The platform at a glance, for admins' })
export class PlatformStats {
  @Field(() => [PlatformDeliveryMinute], { description: 'Webhook attempts of every app per minute over the last 60 minutes, oldest first, zero-filled' })
  deliveriesPerMinute: PlatformDeliveryMinute[];

  @Field(() => Float, { nullable: true, description: 'Failed / all attempts over the last hour, 0..1; null when there were no attempts' })
  failureRate: number | null;

  @Field(() => [ReviewQueueAge], { description: 'Submissions waiting for review, oldest first' })
  reviewQueue: ReviewQueueAge[];

  @Field(() => [FailingApp], { description: 'The apps with the most failed webhook attempts in the last 24 hours, most first, at most 10' })
  appsFailingMost: FailingApp[];
}
