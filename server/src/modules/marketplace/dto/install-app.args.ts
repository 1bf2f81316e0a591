import { ArgsType, Field, ID } from 'type-graphql';

/** installApp's arguments; flat on the wire as the contract fixes them: installApp(appId: ID!). */
@ArgsType()
export class InstallAppArgs {
  @Field(() => ID, { description: 'An approved app' })
  appId: string;
}
