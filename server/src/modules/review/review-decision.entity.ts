import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { RejectionReason, ReviewOutcome } from './review.types.js';

@ObjectType()
@Entity('review_decisions')
@Index('idx_review_decisions_app', ['appId', 'decidedAt'])
export class ReviewDecision {
  @Field(() => ID)
  @PrimaryColumn({ type: 'text' })
  id: string;

  @Field(() => ID)
  @Column({ type: 'text', name: 'app_id' })
  appId: string;

  /** Kept for the audit trail; not shown to developers. */
  @Column({ type: 'text', name: 'reviewer_id' })
  reviewerId: string;

  @Field(() => ReviewOutcome)
  @Column({ type: 'text' })
  outcome: ReviewOutcome;

  @Field(() => [RejectionReason])
  @Column({ type: 'text', array: true })
  reasons: RejectionReason[];

  @Field(() => String, { nullable: true })
  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Field(() => Int, { description: 'The app revision this decision was made on' })
  @Column({ type: 'integer', name: 'app_revision' })
  appRevision: number;

  @Field()
  @Column({ type: 'timestamptz', name: 'decided_at' })
  decidedAt: Date;
}
