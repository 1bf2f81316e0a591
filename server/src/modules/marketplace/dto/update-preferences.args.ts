import { ArgsType, Field } from 'type-graphql';
import { IsLocale, IsTheme } from './preferences.js';

/** updatePreferences' arguments: each unchanged when null. */
@ArgsType()
export class UpdatePreferencesArgs {
  @Field(() => String, { nullable: true, description: '"en" or "vi"; unchanged when null' })
  @IsLocale()
  locale?: string | null;

  @Field(() => String, { nullable: true, description: '"light" or "dark"; unchanged when null' })
  @IsTheme()
  theme?: string | null;
}
