import { ValidateIf, IsIn } from 'class-validator';

export const LOCALES = ['en', 'vi'];
export const THEMES = ['light', 'dark'];

/** locale and theme rules of launchApp and updatePreferences; null or empty means "your preference" / "unchanged". */
export const IsLocale = () => (target: object, property: string) => {
  ValidateIf((args: { locale?: string | null }) => !!args.locale)(target, property);
  IsIn(LOCALES, { message: `locale must be one of ${LOCALES.join(', ')}` })(target, property);
};
export const IsTheme = () => (target: object, property: string) => {
  ValidateIf((args: { theme?: string | null }) => !!args.theme)(target, property);
  IsIn(THEMES, { message: `theme must be one of ${THEMES.join(', ')}` })(target, property);
};
