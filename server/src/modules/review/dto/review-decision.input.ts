import { Field, ID, InputType, Int } from 'type-graphql';
import { IsOptional, MaxLength } from 'class-validator';
import { IsReadableText } from '../../../platform/readable-text.js';
import { RejectionReason, ReviewOutcome } from '../review.types.js';

@InputType({ description: 'A reviewer’s decision for decideReview' })
export class ReviewDecisionInput {
  @Field(() => ID, { description: 'An app pending review that is not your own' })
  appId: string;

  @Field(() => ReviewOutcome, { description: 'APPROVED or REJECTED' })
  outcome: ReviewOutcome;

  @Field(() => [RejectionReason], { nullable: true, description: 'At least one when REJECTED; none when APPROVED' })
  reasons?: RejectionReason[] | null;

  @Field(() => String, { nullable: true, description: 'Shown to the developer; required with reason OTHER; at most 2000 characters' })
  @IsOptional()
  @MaxLength(2000, { message: 'note must be at most 2000 characters' })
  @IsReadableText({ multiline: true })
  note?: string | null;

  @Field(() => Int, { nullable: true, description: 'The app revision reviewed; a newer edit makes the decision a CONFLICT' })
  revision?: number | null;
}
