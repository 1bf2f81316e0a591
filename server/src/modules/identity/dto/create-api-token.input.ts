import { Field, InputType, Int } from 'type-graphql';
import { ArrayMaxSize, ArrayMinSize, IsInt, IsOptional, Max, MaxLength, Min, MinLength } from 'class-validator';
import { IsReadableText } from '../../../platform/readable-text.js';

@InputType({ description: 'A new API token for createApiToken' })
export class CreateApiTokenInput {
  @Field({ description: 'What the token is for, so you can tell your tokens apart; 1..100 characters' })
  @MinLength(1, { message: 'name is required' })
  @MaxLength(100, { message: 'name must be at most 100 characters' })
  @IsReadableText()
  name: string;

  @Field(() => [String], { description: 'One to ten of "deliveries:read", "deliveries:write", "apps:read"; the token can do nothing else' })
  @ArrayMinSize(1, { message: 'scopes needs at least one scope' })
  @ArrayMaxSize(10, { message: 'scopes has too many entries' })
  scopes: string[];

  @Field(() => Int, { nullable: true, description: 'Lifetime in days (1..365); 90 by default' })
  @IsOptional()
  @IsInt({ message: 'expiresInDays must be a whole number of days' })
  @Min(1, { message: 'expiresInDays must be at least 1' })
  @Max(365, { message: 'expiresInDays must be at most 365' })
  expiresInDays?: number | null;
}
