import { Field, ID, ObjectType } from 'type-graphql';

/** The secret in clear, returned only by the owner's audited revealClientSecret, rotateClientSecret and finishClientSecretRotation. */
@ObjectType({ description: 'An app’s client secret in clear, which signs its webhooks; the owner only' })
export class ClientSecret {
  @Field(() => ID, { description: 'The app it signs for (app_<ULID>)' })
  appId: string;

  @Field({ description: 'whsec_ + base64 of 32 random bytes; the HMAC key of X-Platform-Signature (whole string, UTF-8) and of webhook-signature (the base64-decoded part)' })
  value: string;

  @Field({ description: 'When this secret was generated' })
  createdAt: Date;

  @Field(() => String, {
    nullable: true,
    description:
      'While a rotation’s overlap runs: the replaced secret, which still signs (alone in X-Platform-Signature, second in webhook-signature) until previousValidUntil; null otherwise',
  })
  previousValue: string | null;

  @Field(() => Date, { nullable: true, description: 'When the replaced secret stops signing (the overlap ends on its own); null when no overlap runs' })
  previousValidUntil: Date | null;
}
