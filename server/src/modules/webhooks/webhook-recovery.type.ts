import { Field, ID, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: 'What recoverWebhookDeliveries queued: each FAILED delivery since then gets one MANUAL attempt, oldest first, at the pace of the app’s concurrency cap',
})
export class WebhookRecovery {
  @Field(() => ID, { description: 'The app whose deliveries are sent again' })
  appId: string;

  @Field({ description: 'Deliveries created at or after this instant were considered' })
  since: Date;

  @Field(() => Int, { description: 'FAILED deliveries queued now; those already queued by an earlier call are not counted or sent twice' })
  deliveriesQueued: number;

  @Field(() => Int, {
    description: 'FAILED deliveries since then not queued because their body is no longer kept (older than WEBHOOK_BODY_RETENTION): they cannot be sent again',
  })
  deliveriesSkipped: number;
}
