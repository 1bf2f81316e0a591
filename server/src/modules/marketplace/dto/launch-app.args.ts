import { ArgsType, Field, ID } from 'type-graphql';
import { IsLocale, IsTheme } from './preferences.js';

/** launchApp's arguments; flat on the wire as the contract fixes them: launchApp(appId: ID!), plus optional locale and theme. */
@ArgsType()
export class LaunchAppArgs {
  @Field(() => ID, { description: 'The app to open' })
  appId: string;

  @Field(() => String, { nullable: true, description: '"en" or "vi" for this launch; your preference when null' })
  @IsLocale()
  locale?: string | null;

  @Field(() => String, { nullable: true, description: '"light" or "dark" for this launch; your preference when null' })
  @IsTheme()
  theme?: string | null;
}
