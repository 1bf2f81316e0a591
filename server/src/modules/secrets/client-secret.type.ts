import { Field, ID, ObjectType } from 'type-graphql';

/** The secret in clear, returned only by revealClientSecret and rotateClientSecret. */
@ObjectType()
export class ClientSecret {
  @Field(() => ID)
  appId: string;

  @Field()
  value: string;

  @Field()
  createdAt: Date;
}
