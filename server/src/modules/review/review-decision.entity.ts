import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { RejectionReason, ReviewOutcome } from './review.types.js';

@ObjectType({ description: 'A reviewer’s decision on one revision of an app; the reviewer is not shown' })
@Entity('review_decisions')
@Index('idx_review_decisions_app', ['appId', 'decidedAt'])
export class ReviewDecision {
  @Field(() => ID, { description: 'rvw_<ULID>' })
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID, { description: 'The app decided on (app_<ULID>)' })
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  /** Kept for the audit trail; not shown to developers. */
  @Column({ type: 'text', name: 'reviewer_id' })
  reviewerId: string;

  @Field(() => ReviewOutcome, { description: 'APPROVED lists the app in the store; REJECTED sends it back to its developer' })
  @Column({ type: 'text' })
  outcome: ReviewOutcome;

  @Field(() => [RejectionReason], { description: 'Why it was rejected; empty when APPROVED' })
  @Column({ type: 'text', array: true })
  reasons: RejectionReason[];

  @Field(() => String, { nullable: true, description: 'The reviewer’s note to the developer; null when none was given' })
  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Field(() => Int, { description: 'The app revision this decision was made on' })
  @Column({ type: 'integer', name: 'app_revision' })
  appRevision: number;

  @Field({ description: 'When the decision was made' })
  @Column({ type: 'timestamptz', name: 'decided_at' })
  decidedAt: Date;
}
