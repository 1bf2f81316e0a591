import { Field, InputType, Int } from 'type-graphql';
import { ValidateIf } from 'class-validator';
import { Pricing } from '../app.types.js';
import { IsAppName, IsCategory, IsHttpsUrl, IsPricePoints, IsPricing, IsShortDescription, IsWebhookUrl } from '../app-rules.js';

/** Only the fields given change; the same rules as SubmitAppInput apply to each. */
@InputType()
export class UpdateAppInput {
  @Field({ nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsAppName()
  name?: string;

  @Field({ nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsShortDescription()
  shortDescription?: string;

  @Field({ nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsHttpsUrl()
  iconUrl?: string;

  @Field({ nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsHttpsUrl()
  appUrl?: string;

  @Field({ nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsCategory()
  category?: string;

  @Field(() => Pricing, { nullable: true })
  @ValidateIf((_, v) => v !== undefined)
  @IsPricing()
  pricing?: Pricing;

  @Field(() => Int, { nullable: true, description: 'Set with PAID; pass null to clear it when switching to FREE' })
  @IsPricePoints()
  pricePoints?: number | null;

  @Field(() => String, { nullable: true, description: 'Pass null to remove the webhook' })
  @IsWebhookUrl()
  webhookUrl?: string | null;
}
