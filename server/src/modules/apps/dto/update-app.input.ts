import { Field, InputType, Int } from 'type-graphql';
import { ValidateIf } from 'class-validator';
import { Pricing } from '../app.types.js';
import {
  IsAppName,
  IsCategory,
  IsHttpsUrl,
  IsLongDescription,
  IsOptionalHttpsUrl,
  IsPricePoints,
  IsPricing,
  IsScreenshotUrls,
  IsShortDescription,
  IsWebhookEvents,
  IsWebhookUrl,
} from '../app-rules.js';
import { WebhookEventType } from '../../../platform/webhook-enums.js';

/** Only the fields given change; the same rules as SubmitAppInput apply to each. */
@InputType({ description: 'Changes for updateApp: only the fields given change, each by the rules of SubmitAppInput' })
export class UpdateAppInput {
  @Field({ nullable: true, description: 'Shown in the app store; 1..60 characters' })
  @ValidateIf((_, v) => v !== undefined)
  @IsAppName()
  name?: string;

  @Field({ nullable: true, description: 'One line on the app card; 1..120 characters' })
  @ValidateIf((_, v) => v !== undefined)
  @IsShortDescription()
  shortDescription?: string;

  @Field({ nullable: true, description: 'HTTPS URL of an image; 512x512 pixels recommended' })
  @ValidateIf((_, v) => v !== undefined)
  @IsHttpsUrl()
  iconUrl?: string;

  @Field(() => String, { nullable: true, description: 'The app page’s description, up to 4,000 characters; pass null or "" to remove it' })
  @IsLongDescription()
  longDescription?: string | null;

  @Field(() => [String], { nullable: true, description: 'Up to 5 HTTPS image URLs, replacing the list; pass [] or null to remove them all' })
  @IsScreenshotUrls()
  screenshotUrls?: string[] | null;

  @Field(() => String, { nullable: true, description: 'HTTPS support page; pass null or "" to remove it' })
  @IsOptionalHttpsUrl()
  supportUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'HTTPS privacy policy page; pass null or "" to remove it' })
  @IsOptionalHttpsUrl()
  privacyPolicyUrl?: string | null;

  @Field({ nullable: true, description: 'HTTPS page the platform loads in an iframe' })
  @ValidateIf((_, v) => v !== undefined)
  @IsHttpsUrl()
  appUrl?: string;

  @Field({ nullable: true, description: 'One of `categories`' })
  @ValidateIf((_, v) => v !== undefined)
  @IsCategory()
  category?: string;

  @Field(() => Pricing, { nullable: true, description: 'FREE, or PAID with pricePoints' })
  @ValidateIf((_, v) => v !== undefined)
  @IsPricing()
  pricing?: Pricing;

  @Field(() => Int, { nullable: true, description: 'Set with PAID; pass null to clear it when switching to FREE' })
  @IsPricePoints()
  pricePoints?: number | null;

  @Field(() => String, { nullable: true, description: 'Pass null to remove the webhook' })
  @IsWebhookUrl()
  webhookUrl?: string | null;

  @Field(() => [WebhookEventType], {
    nullable: true,
    description:
      'The events to send to the webhook URL: one or more of APP_PURCHASED, APP_INSTALLED, APP_UNINSTALLED, APP_REFUNDED (unchanged when not given). Takes effect at once, without review',
  })
  @IsWebhookEvents()
  webhookEvents?: WebhookEventType[] | null;
}
