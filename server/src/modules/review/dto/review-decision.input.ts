import { Field, ID, InputType, Int } from 'type-graphql';
import { IsOptional, MaxLength } from 'class-validator';
import { IsReadableText } from '../../../platform/readable-text.js';
import { RejectionReason, ReviewOutcome } from '../review.types.js';

@InputType()
export class ReviewDecisionInput {
  @Field(() => ID)
  appId: string;

  @Field(() => ReviewOutcome)
  outcome: ReviewOutcome;

  @Field(() => [RejectionReason], { nullable: true, description: 'At least one when REJECTED; none when APPROVED' })
  reasons?: RejectionReason[] | null;

  @Field(() => String, { nullable: true, description: 'Shown to the developer; required with reason OTHER' })
  @IsOptional()
  @MaxLength(2000, { message: 'note must be at most 2000 characters' })
  @IsReadableText({ multiline: true })
  note?: string | null;

  @Field(() => Int, { nullable: true, description: 'The app revision reviewed; a newer edit makes the decision a CONFLICT' })
  revision?: number | null;
}
