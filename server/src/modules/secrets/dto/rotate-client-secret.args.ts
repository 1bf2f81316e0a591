import { ArgsType, Field, ID, Int } from 'type-graphql';
import { IsOptional, Max, Min } from 'class-validator';

/** The overlap rotateClientSecret gives when none is asked for: a day to redeploy receivers. */
export const DEFAULT_OVERLAP_HOURS = 24;
/** The longest overlap: a week; an old secret signing longer is a leak waiting to happen. */
export const MAX_OVERLAP_HOURS = 168;

const OVERLAP_RANGE = `overlapHours must be a whole number of hours from 0 (switch now) to ${MAX_OVERLAP_HOURS}`;

/** rotateClientSecret's arguments, flat on the wire as the contract fixes them: rotateClientSecret(appId: ID!, overlapHours: Int). */
@ArgsType()
export class RotateClientSecretArgs {
  @Field(() => ID, { description: 'One of your apps (app_<ULID>)' })
  appId: string;

  // No defaultValue in the schema: the contract prints the argument as `overlapHours: Int`; null means the default.
  @Field(() => Int, {
    nullable: true,
    description: `Hours the replaced secret keeps signing beside the new one: ${DEFAULT_OVERLAP_HOURS} when omitted, 0 switches at once (for a leaked secret), at most ${MAX_OVERLAP_HOURS}`,
  })
  @IsOptional()
  @Min(0, { message: OVERLAP_RANGE })
  @Max(MAX_OVERLAP_HOURS, { message: OVERLAP_RANGE })
  overlapHours?: number | null;
}
