import { Field, Int, ObjectType } from 'type-graphql';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@ObjectType()
export class PreCheckResult {
  /** APP_URL_HTTPS, APP_URL_FRAMEABLE, ICON_IMAGE, ICON_SIZE */
  @Field()
  check: string;

  /** PASS, WARN or FAIL */
  @Field()
  outcome: string;

  @Field()
  detail: string;
}

/** Automated checks of one revision of an app, shown to reviewers; they never block a submission. */
@ObjectType('PreCheckReport')
@Entity('app_pre_checks')
export class AppPreCheck {
  @PrimaryColumn({ type: 'text', name: 'app_id' })
  appId: string;

  @Field(() => Int)
  @PrimaryColumn({ type: 'integer' })
  revision: number;

  /** PENDING, DONE, or SUPERSEDED (the app changed before the checks ran) */
  @Field()
  @Column({ type: 'text' })
  status: string;

  @Field(() => [PreCheckResult])
  @Column({ type: 'jsonb', default: () => "'[]'" })
  results: PreCheckResult[];

  @Field()
  @Column({ type: 'timestamptz', name: 'requested_at' })
  requestedAt: Date;

  @Field(() => Date, { nullable: true })
  @Column({ type: 'timestamptz', name: 'completed_at', nullable: true })
  completedAt: Date | null;

  @Column({ type: 'timestamptz', name: 'claim_expires_at', nullable: true })
  claimExpiresAt: Date | null;
}
