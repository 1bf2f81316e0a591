import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { AppStatus, Pricing, type Listing } from './app.types.js';

@ObjectType()
@Entity('apps')
@Index('idx_apps_review_queue', ['submittedAt', 'id'], { where: `status = 'PENDING_REVIEW'` })
@Index('idx_apps_store', ['listedAt', 'id'], { where: 'published_listing IS NOT NULL' })
export class App {
  /** `app_` + ULID */
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID)
  @Index('idx_apps_owner_id')
  @Column({ type: 'text', name: 'owner_id' })
  ownerId: string;

  @Field()
  @Column({ type: 'text' })
  name: string;

  @Field()
  @Column({ type: 'text', name: 'short_description' })
  shortDescription: string;

  @Field()
  @Column({ type: 'text', name: 'icon_url' })
  iconUrl: string;

  @Field()
  @Column({ type: 'text', name: 'app_url' })
  appUrl: string;

  @Field()
  @Column({ type: 'text' })
  category: string;

  @Field(() => Pricing)
  @Column({ type: 'text' })
  pricing: Pricing;

  @Field(() => Int, { nullable: true })
  @Column({ type: 'integer', name: 'price_points', nullable: true })
  pricePoints: number | null;

  @Field(() => String, { nullable: true })
  @Column({ type: 'text', name: 'webhook_url', nullable: true })
  webhookUrl: string | null;

  @Field(() => AppStatus)
  @Column({ type: 'text' })
  status: AppStatus;

  /** Bumped on every edit, so a reviewer can decide on exactly the version they looked at. */
  @Field(() => Int)
  @Column({ type: 'integer', default: 1 })
  revision: number;

  /** When the version now waiting (or last decided) was submitted. */
  @Field()
  @Column({ type: 'timestamptz', name: 'submitted_at' })
  submittedAt: Date;

  @Field()
  @Column({ type: 'timestamptz', name: 'review_due_at' })
  reviewDueAt: Date;

  /** The last approved listing, which the store shows while a newer version waits for review. */
  @Column({ type: 'jsonb', name: 'published_listing', nullable: true })
  publishedListing: Listing | null;

  @Field(() => Date, { nullable: true, description: 'When the app was first approved and listed in the store' })
  @Column({ type: 'timestamptz', name: 'listed_at', nullable: true })
  listedAt: Date | null;

  @Field()
  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Field()
  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
