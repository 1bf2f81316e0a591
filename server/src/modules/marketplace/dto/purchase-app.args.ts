import { ArgsType, Field, ID } from 'type-graphql';

/** purchaseApp's arguments; flat on the wire as the contract fixes them: purchaseApp(appId: ID!). */
@ArgsType()
export class PurchaseAppArgs {
  @Field(() => ID, { description: 'An approved paid app you do not own yet' })
  appId: string;
}
