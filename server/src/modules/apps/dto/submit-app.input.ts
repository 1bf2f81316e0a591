import { Field, InputType, Int } from 'type-graphql';
import { Pricing } from '../app.types.js';
import {
  IsAppName,
  IsCategory,
  IsHttpsUrl,
  IsLongDescription,
  IsOptionalHttpsUrl,
  IsPricePoints,
  IsScreenshotUrls,
  IsShortDescription,
  IsWebhookEvents,
  IsWebhookUrl,
} from '../app-rules.js';
import { WebhookEventType } from '../../../platform/webhook-enums.js';

@InputType({ description: 'A new app for submitApp' })
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

  @Field(() => String, { nullable: true, description: 'The app page’s description, plain text in paragraphs; up to 4,000 characters; optional' })
  @IsLongDescription()
  longDescription?: string | null;

  @Field(() => [String], { nullable: true, description: 'Up to 5 HTTPS image URLs shown on the app page, in this order; checked by the review pre-checks as the icon is' })
  @IsScreenshotUrls()
  screenshotUrls?: string[] | null;

  @Field(() => String, { nullable: true, description: 'HTTPS page where users get help with the app; optional' })
  @IsOptionalHttpsUrl()
  supportUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'HTTPS page of the app’s privacy policy; optional' })
  @IsOptionalHttpsUrl()
  privacyPolicyUrl?: string | null;

  @Field({ description: 'HTTPS page the platform loads in an iframe' })
  @IsHttpsUrl()
  appUrl: string;

  @Field({ description: 'One of `categories`' })
  @IsCategory()
  category: string;

  @Field(() => Pricing, { description: 'FREE, or PAID with pricePoints' })
  pricing: Pricing;

  @Field(() => Int, { nullable: true, description: 'Price in platform points: required and 1..1,000,000 when PAID; null when FREE' })
  @IsPricePoints()
  pricePoints?: number | null;

  @Field(() => String, { nullable: true, description: 'Where webhook events are sent; optional; HTTPS unless the platform allows private URLs' })
  @IsWebhookUrl()
  webhookUrl?: string | null;

  @Field(() => [WebhookEventType], {
    nullable: true,
    description:
      'The events to send to the webhook URL: one or more of APP_PURCHASED, APP_INSTALLED, APP_UNINSTALLED, APP_REFUNDED (all four when not given). Takes effect at once, without review',
  })
  @IsWebhookEvents()
  webhookEvents?: WebhookEventType[] | null;
}
