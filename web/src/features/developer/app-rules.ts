// Mirrors the server's rules (server/src/modules/apps/app-rules.ts) so people see them while typing;
// the server still decides, and its answer is attached to the field it names.
export const NAME_MAX_CHARS = 60;
export const SHORT_DESCRIPTION_MAX_CHARS = 120;

/** Characters as people count them (code points), as the server does. */
export const charCount = (text: string) => [...text].length;

// As the server's platform/readable-text.ts: format characters (bidi controls, zero-width ones, tags) and line
// separators are refused, except a zero-width joiner between emoji (👩‍💻), which draws them as one picture.
const EMOJI_ZWJ = /(?<=\p{Extended_Pictographic}[\u{FE0F}\u{1F3FB}-\u{1F3FF}]?)\u{200D}(?=\p{Extended_Pictographic})/gu;
const HIDDEN_CHARACTER = /[\p{Cf}\p{Zl}\p{Zp}]/u;

/** The first invisible or text-direction character, as U+XXXX, or null when there is none. */
export function hiddenCharacter(text: string): string | null {
  const found = HIDDEN_CHARACTER.exec(text.replace(EMOJI_ZWJ, ''));
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}

const hiddenProblem = (code: string) => `Remove the invisible or text-direction character ${code}: it changes how the text reads.`;

export type HttpsProblem = 'not-absolute' | 'not-https' | null;

export function httpsProblem(value: string): HttpsProblem {
  const text = value.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not-absolute';
  }
  return url.protocol === 'https:' ? null : 'not-https';
}

export interface AppFormValues {
  name: string;
  shortDescription: string;
  iconUrl: string;
  appUrl: string;
  category: string;
  pricing: 'FREE' | 'PAID';
  pricePoints: string;
  webhookUrl: string;
}

export const EMPTY_APP_FORM: AppFormValues = {
  name: '',
  shortDescription: '',
  iconUrl: '',
  appUrl: '',
  category: '',
  pricing: 'FREE',
  pricePoints: '',
  webhookUrl: '',
};

/** The mutation input: a free app carries no price, and an empty webhook URL means none. */
export function toAppInput(values: AppFormValues) {
  return {
    name: values.name.trim(),
    shortDescription: values.shortDescription.trim(),
    iconUrl: values.iconUrl.trim(),
    appUrl: values.appUrl.trim(),
    category: values.category,
    pricing: values.pricing,
    pricePoints: values.pricing === 'PAID' ? Number(values.pricePoints) : null,
    webhookUrl: values.webhookUrl.trim() === '' ? null : values.webhookUrl.trim(),
  };
}

export type AppField = keyof AppFormValues;

/** Problems the form can tell before sending; the server checks the same and more. */
export function localProblems(values: AppFormValues): Partial<Record<AppField, string>> {
  const problems: Partial<Record<AppField, string>> = {};
  const hiddenInName = hiddenCharacter(values.name);
  if (values.name.trim() === '') problems.name = 'Enter a name.';
  else if (hiddenInName) problems.name = hiddenProblem(hiddenInName);
  else if (charCount(values.name.trim()) > NAME_MAX_CHARS) problems.name = `At most ${NAME_MAX_CHARS} characters.`;
  const count = charCount(values.shortDescription.trim());
  const hiddenInDescription = hiddenCharacter(values.shortDescription);
  if (count === 0) problems.shortDescription = 'Enter a short description.';
  else if (hiddenInDescription) problems.shortDescription = hiddenProblem(hiddenInDescription);
  else if (count > SHORT_DESCRIPTION_MAX_CHARS) problems.shortDescription = `At most ${SHORT_DESCRIPTION_MAX_CHARS} characters (it has ${count}).`;
  for (const field of ['iconUrl', 'appUrl'] as const) {
    if (values[field].trim() === '') problems[field] = 'Enter an https:// address.';
    else if (httpsProblem(values[field])) problems[field] = 'Must be an https:// address.';
  }
  if (values.category === '') problems.category = 'Choose a category.';
  if (values.pricing === 'PAID') {
    const price = Number(values.pricePoints);
    if (!Number.isInteger(price) || price <= 0) problems.pricePoints = 'Enter a whole number of points greater than 0.';
  }
  return problems;
}
