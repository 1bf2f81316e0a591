import { Field, ObjectType } from 'type-graphql';
import { WebhookEventType } from '../webhook.types.js';

/** What an app is sent about the people who use it, as its store page tells them; names only, never where to. */
@ObjectType({ description: 'What the app receives: the fields of the session message it gets when opened, and the webhook events it is sent' })
export class AppReceives {
  @Field(() => [String], { description: 'The data fields of INIT_SESSION, sent to the app’s page when someone opens it: token, userId, locale, theme' })
  sessionFields: string[];

  @Field(() => [WebhookEventType], {
    description:
      'The business events any of its webhook endpoints is sent, in the catalogue’s order; empty when it has no endpoint. Endpoints change without review, so this is as they are now',
  })
  webhookEvents: WebhookEventType[];
}
