import { ArgsType, Field, ID } from 'type-graphql';

/** uninstallApp's arguments; flat on the wire as the contract fixes them: uninstallApp(appId: ID!). */
@ArgsType()
export class UninstallAppArgs {
  @Field(() => ID, { description: 'An app in your library' })
  appId: string;
}
