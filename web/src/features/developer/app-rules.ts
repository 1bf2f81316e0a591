import { appNameIssue, HTTPS_ONLY, pricePointsIssue, shortDescriptionIssue, urlIssue, urlShapeIssue, webhookUrlIssue, type AppRuleIssue } from '@plaza/shared';
import type { WebhookEventType } from '../../gql/graphql';

// The rules are the server's own (@plaza/shared), run here so people see a problem while typing; the server
// still decides, and its answer is attached to the field it names. Only the wording is the form's.
export { charCount, NAME_MAX_CHARS, SHORT_DESCRIPTION_MAX_CHARS } from '@plaza/shared';

/** The form's wording of an issue; `required` is what to ask for when the field is empty. */
function sentence(issue: AppRuleIssue, required: string, showCount: boolean): string {
  switch (issue.code) {
    case 'REQUIRED':
      return required;
    case 'HIDDEN_CHARACTER':
      return `Remove the invisible or text-direction character ${issue.codePoint}: it changes how the text reads.`;
    case 'CONTROL_CHARACTER':
      return 'Remove control characters such as tabs or line breaks.';
    case 'UNPAIRED_SURROGATE':
      return 'Contains a broken character; type it again.';
    case 'MULTILINE':
      return 'Keep it to one line: it is shown on the app card.';
    case 'TOO_LONG':
      return showCount ? `At most ${issue.max} characters (it has ${issue.count}).` : `At most ${issue.max} characters.`;
    case 'URL_TOO_LONG':
      return `At most ${issue.max} characters.`;
    case 'NOT_ABSOLUTE_URL':
    case 'NOT_HTTPS':
    case 'URL_WITHOUT_HOST':
      return 'Must be an https:// address.';
    case 'NOT_HTTP_OR_HTTPS':
      return 'Must be an http:// or https:// address.';
    case 'URL_HAS_CREDENTIALS':
      return 'Leave out the user name and password.';
    case 'NOT_POSITIVE_WHOLE_NUMBER':
      return 'Enter a whole number of points greater than 0.';
    case 'TOO_MANY_POINTS':
      return `At most ${issue.max} points.`;
  }
}

export type HttpsProblem = 'not-absolute' | 'not-https' | null;

/** For the hint under a URL field while typing: only what the shape says, nothing while it is empty. */
export function httpsProblem(value: string): HttpsProblem {
  const text = value.trim();
  if (text === '') return null;
  const issue = urlShapeIssue(text, HTTPS_ONLY);
  return issue?.code === 'NOT_ABSOLUTE_URL' ? 'not-absolute' : issue?.code === 'NOT_HTTPS' ? 'not-https' : null;
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
  /** The business events sent to the webhook URL; at least one (test events are always sendable). */
  webhookEvents: WebhookEventType[];
}

/** The events an app can subscribe to, in the order the form lists them; the server's default is all four. */
export const SUBSCRIBABLE_EVENTS: readonly WebhookEventType[] = ['APP_PURCHASED', 'APP_INSTALLED', 'APP_UNINSTALLED', 'APP_REFUNDED'];

/** The name an event has on the wire and in the docs: APP_PURCHASED is "app.purchased". */
export const eventWireName = (event: WebhookEventType) => `app.${event.slice('APP_'.length).toLowerCase()}`;

export const EMPTY_APP_FORM: AppFormValues = {
  name: '',
  shortDescription: '',
  iconUrl: '',
  appUrl: '',
  category: '',
  pricing: 'FREE',
  pricePoints: '',
  webhookUrl: '',
  webhookEvents: [...SUBSCRIBABLE_EVENTS],
};

const sameEvents = (a: readonly WebhookEventType[], b: readonly WebhookEventType[]) => a.length === b.length && a.every((event) => b.includes(event));

/**
 * The mutation input: a free app carries no price, and an empty webhook URL means none. The events are
 * sent only when they differ from `initial` (what the app has, or the server's default of all four for
 * a new app): the server reads an absent list as "unchanged" or "all four".
 */
export function toAppInput(values: AppFormValues, initial: AppFormValues = EMPTY_APP_FORM) {
  const events = SUBSCRIBABLE_EVENTS.filter((event) => values.webhookEvents.includes(event));
  return {
    name: values.name.trim(),
    shortDescription: values.shortDescription.trim(),
    iconUrl: values.iconUrl.trim(),
    appUrl: values.appUrl.trim(),
    category: values.category,
    pricing: values.pricing,
    pricePoints: values.pricing === 'PAID' ? Number(values.pricePoints) : null,
    webhookUrl: values.webhookUrl.trim() === '' ? null : values.webhookUrl.trim(),
    ...(sameEvents(events, initial.webhookEvents) ? {} : { webhookEvents: events }),
  };
}

export type AppField = keyof AppFormValues;

/**
 * Problems the form can tell before sending: the server's rules applied to exactly what would be sent
 * (trimmed), so the form never refuses what the server would accept.
 */
export function localProblems(values: AppFormValues): Partial<Record<AppField, string>> {
  const input = toAppInput(values);
  const problems: Partial<Record<AppField, string>> = {};
  const say = (field: AppField, issue: AppRuleIssue | undefined, required = '', showCount = true) => {
    if (issue) problems[field] = sentence(issue, required, showCount);
  };
  say('name', appNameIssue(input.name), 'Enter a name.', false);
  say('shortDescription', shortDescriptionIssue(input.shortDescription), 'Enter a short description.');
  for (const field of ['iconUrl', 'appUrl'] as const) say(field, urlIssue(input[field], HTTPS_ONLY), 'Enter an https:// address.');
  say('webhookUrl', webhookUrlIssue(input.webhookUrl));
  if (values.category === '') problems.category = 'Choose a category.';
  if (values.pricing === 'PAID') say('pricePoints', pricePointsIssue(input.pricePoints));
  return problems;
}
