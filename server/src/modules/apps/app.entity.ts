import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { WebhookEventType, WebhookState } from '../../platform/webhook-enums.js';
import { AppStatus, Pricing, SUBSCRIBABLE_EVENTS, type Listing } from './app.types.js';

// simpleResolvers: its @Field properties are read inline by the compiled executor (no middleware or auth on them), 140
// resolver calls less for a store page of 20; the derived fields (developerName, priceVnd...) keep their field resolvers,
// and screenshotUrls, a getter under another name, keeps its own.
@ObjectType({ description: 'An app in the marketplace. Its developer and reviewers see the current version; everyone else the last approved listing', simpleResolvers: true })
@Entity('apps')
@Index('idx_apps_review_queue', ['submittedAt', 'id'], { where: `status = 'PENDING_REVIEW'` })
@Index('idx_apps_store', ['listedAt', 'id'], { where: 'published_listing IS NOT NULL' })
export class App {
  /** `app_` + ULID */
  @Field(() => ID, { description: 'app_<ULID>; the app_id of its webhook events' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID, { description: 'The user id of the developer who submitted it' })
  @Index('idx_apps_owner_id')
  @Column({ type: 'text', name: 'owner_id' })
  ownerId: string;

  @Field({ description: 'Shown in the store; 1..60 characters' })
  @Column({ type: 'text' })
  name: string;

  @Field({ description: 'One line on the app card; 1..120 characters' })
  @Column({ type: 'text', name: 'short_description' })
  shortDescription: string;

  @Field({ description: 'HTTPS URL of the app’s icon' })
  @Column({ type: 'text', name: 'icon_url' })
  iconUrl: string;

  @Field(() => String, { nullable: true, description: 'The app page’s description, plain text in paragraphs (line breaks kept); null when none' })
  @Column({ type: 'text', name: 'long_description', nullable: true })
  longDescription: string | null;

  /** Null when none (the column came nullable, so the previous release's inserts need not name it); GraphQL answers []. */
  @Column({ type: 'text', array: true, name: 'screenshot_urls', nullable: true })
  screenshotUrls: string[] | null;

  @Field(() => String, { nullable: true, description: 'HTTPS page where users get help with the app; null when none' })
  @Column({ type: 'text', name: 'support_url', nullable: true })
  supportUrl: string | null;

  @Field(() => String, { nullable: true, description: 'HTTPS page of the app’s privacy policy; null when none' })
  @Column({ type: 'text', name: 'privacy_policy_url', nullable: true })
  privacyPolicyUrl: string | null;

  @Field({ description: 'HTTPS page the platform loads in an iframe' })
  @Column({ type: 'text', name: 'app_url' })
  appUrl: string;

  @Field({ description: 'One of the `categories` ids, e.g. "games"' })
  @Column({ type: 'text' })
  category: string;

  @Field(() => Pricing, { description: 'FREE or PAID' })
  @Column({ type: 'text' })
  pricing: Pricing;

  @Field(() => Int, { nullable: true, description: 'Price in platform points when PAID; null when FREE' })
  @Column({ type: 'integer', name: 'price_points', nullable: true })
  pricePoints: number | null;

  @Field(() => String, { nullable: true, description: 'Where webhook events are sent; only its developer and reviewers see it (null for everyone else, and when none is set)' })
  @Column({ type: 'text', name: 'webhook_url', nullable: true })
  webhookUrl: string | null;

  /** Event filters: which of the four business events are sent; app.test always is. Changes without review. */
  @Field(() => [WebhookEventType], {
    description: 'The events sent to the webhook URL (all four by default); APP_TEST is always sendable. Changed through submitApp/updateApp without a new review',
  })
  @Column({ type: 'text', array: true, name: 'webhook_events', default: () => `'{${SUBSCRIBABLE_EVENTS.join(',')}}'` })
  webhookEvents: WebhookEventType[];

  @Field(() => AppStatus, { description: 'Where the current version stands in review; APPROVED for everyone who sees only the listing' })
  @Column({ type: 'text' })
  status: AppStatus;

  /** Bumped on every edit, so a reviewer can decide on exactly the version they looked at. */
  @Field(() => Int, { description: 'Starts at 1 and goes up with every edit; decideReview names the revision it decides' })
  @Column({ type: 'integer', default: 1 })
  revision: number;

  /** When the version now waiting (or last decided) was submitted. */
  @Field({ description: 'When the version now waiting (or last decided) was submitted' })
  @Column({ type: 'timestamptz', name: 'submitted_at' })
  submittedAt: Date;

  @Field({ description: 'submittedAt + 24 hours: when review is due' })
  @Column({ type: 'timestamptz', name: 'review_due_at' })
  reviewDueAt: Date;

  /** The last approved listing, which the store shows while a newer version waits for review. */
  @Column({ type: 'jsonb', name: 'published_listing', nullable: true })
  publishedListing: Listing | null;

  @Field(() => Date, { nullable: true, description: 'When the app was first approved and listed in the store' })
  @Column({ type: 'timestamptz', name: 'listed_at', nullable: true })
  listedAt: Date | null;

  /** Kept by the webhooks feature: DISABLED when sustained failure (WEBHOOK_DISABLE_AFTER) has left no endpoint enabled, until enableWebhook or a resume. */
  @Field(() => WebhookState, {
    description:
      'ENABLED, or DISABLED when sustained delivery failure has left no endpoint receiving (one disabled, none enabled; with one endpoint, its state): events are recorded but not sent until enableWebhook',
  })
  @Column({ type: 'text', name: 'webhook_state', default: WebhookState.ENABLED })
  webhookState: WebhookState;

  @Field({ description: 'When the app was first submitted' })
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field({ description: 'When the app record last changed' })
  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;

  @Field(() => [String], { name: 'screenshotUrls', simple: false, description: 'Up to 5 HTTPS image URLs shown on the app page, in order; [] when none' })
  get screenshots(): string[] {
    return this.screenshotUrls ?? [];
  }
}
