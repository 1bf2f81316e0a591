import { Field, ID, Int, ObjectType } from 'type-graphql';

/** Who made an app, as a reviewer weighs a submission: the account, and how the developer's other work fared. */
@ObjectType({ description: 'Who made an app, as reviewers and admins see them: their account, their other apps and the review decisions on their apps' })
export class AppDeveloper {
  @Field(() => ID, { description: 'The developer’s user id' })
  id: string;

  @Field({ description: 'As the store names them: the part before the @ of their sign-in e-mail' })
  name: string;

  @Field({ description: 'The e-mail address they sign in with' })
  email: string;

  /** The app this developer was asked from; otherApps leaves it out. */
  appId: string;
}

@ObjectType({ description: 'How many review decisions the apps of one developer received, every revision counted' })
export class DeveloperDecisionCounts {
  @Field(() => Int, { description: 'Decisions that approved one of their apps' })
  approved: number;

  @Field(() => Int, { description: 'Decisions that rejected one of their apps' })
  rejected: number;
}
