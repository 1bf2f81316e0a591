import { Field, InputType, Int } from 'type-graphql';
import { Pricing } from '../app.types.js';
import { IsAppName, IsCategory, IsHttpsUrl, IsPricePoints, IsShortDescription, IsWebhookUrl } from '../app-rules.js';

@InputType()
export class SubmitAppInput {
  @Field({ description: 'Shown in the app store; 1..60 characters' })
  @IsAppName()
  name: string;

  @Field({ description: 'One line on the app card; 1..120 characters' })
  @IsShortDescription()
  shortDescription: string;

  @Field({ description: 'HTTPS URL of an image; 512x512 pixels recommended' })
  @IsHttpsUrl()
  iconUrl: string;

  @Field({ description: 'HTTPS page the platform loads in an iframe' })
  @IsHttpsUrl()
  appUrl: string;

  @Field({ description: 'One of `categories`' })
  @IsCategory()
  category: string;

  @Field(() => Pricing)
  pricing: Pricing;

  @Field(() => Int, { nullable: true, description: 'Required and > 0 when PAID; null when FREE' })
  @IsPricePoints()
  pricePoints?: number | null;

  @Field(() => String, { nullable: true, description: 'Optional; HTTPS unless the platform allows private URLs' })
  @IsWebhookUrl()
  webhookUrl?: string | null;
}
