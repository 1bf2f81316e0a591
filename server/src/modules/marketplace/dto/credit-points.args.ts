import { ArgsType, Field, ID, Int } from 'type-graphql';
import { Matches, Max, Min } from 'class-validator';
import { IsReadableText } from '../../../platform/readable-text.js';

const POINTS_RANGE = 'points must be a whole number between 1 and 10,000,000';

/** creditPoints' arguments; flat on the wire as the contract fixes them: creditPoints(userId: ID!, points: Int!, reason: String!). */
@ArgsType()
export class CreditPointsArgs {
  @Field(() => ID, { description: 'Whose balance' })
  userId: string;

  @Field(() => Int, { description: 'Points to add: 1..10,000,000' })
  @Min(1, { message: POINTS_RANGE })
  @Max(10_000_000, { message: POINTS_RANGE })
  points: number;

  @Field({ description: 'Why; kept in the points journal' })
  @Matches(/\S/, { message: 'reason is required: say why the points are credited' })
  @IsReadableText({ multiline: true })
  reason: string;
}
