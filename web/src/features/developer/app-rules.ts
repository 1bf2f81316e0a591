import {
  appNameIssue,
  HTTPS_ONLY,
  longDescriptionIssue,
  optionalHttpsUrlIssue,
  pricePointsIssue,
  SCREENSHOTS_MAX,
  screenshotUrlsIssue,
  shortDescriptionIssue,
  urlIssue,
  urlShapeIssue,
  webhookUrlIssue,
  type AppRuleIssue,
} from '@plaza/shared';
import type { WebhookEventType } from '../../gql/graphql';
import type { Translate } from '../../i18n/i18n';
import type { MessageKey } from '../../i18n/strings';

// The rules are the server's own (@plaza/shared), run here so people see a problem while typing; the server
// still decides, and its answer is attached to the field it names. Only the wording is the form's.
export { charCount, LONG_DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS, SCREENSHOTS_MAX, SHORT_DESCRIPTION_MAX_CHARS } from '@plaza/shared';

/** The form's wording of an issue, in the reader's language; `required` is what to ask for when the field is empty. */
function sentence(t: Translate, issue: AppRuleIssue, required: MessageKey, showCount: boolean): string {
  switch (issue.code) {
    case 'REQUIRED':
      return t(required);
    case 'HIDDEN_CHARACTER':
      return t('rule.hiddenCharacter', { codePoint: issue.codePoint });
    case 'CONTROL_CHARACTER':
      return t('rule.controlCharacter');
    case 'UNPAIRED_SURROGATE':
      return t('rule.unpairedSurrogate');
    case 'MULTILINE':
      return t('rule.multiline');
    case 'TOO_LONG':
      return showCount ? t('rule.tooLongCount', { max: issue.max, count: issue.count }) : t('rule.tooLong', { max: issue.max });
    case 'URL_TOO_LONG':
      return t('rule.tooLong', { max: issue.max });
    case 'NOT_ABSOLUTE_URL':
    case 'NOT_HTTPS':
    case 'URL_WITHOUT_HOST':
      return t('rule.notHttps');
    case 'NOT_HTTP_OR_HTTPS':
      return t('rule.notHttpOrHttps');
    case 'URL_HAS_CREDENTIALS':
      return t('rule.credentials');
    case 'NOT_POSITIVE_WHOLE_NUMBER':
      return t('rule.positivePoints');
    case 'TOO_MANY_POINTS':
      return t('rule.tooManyPoints', { max: issue.max });
    case 'NOT_A_LIST':
      return t('rule.tooManyScreenshots', { max: SCREENSHOTS_MAX });
    case 'TOO_MANY_SCREENSHOTS':
      return t('rule.tooManyScreenshots', { max: issue.max });
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
  /** The app page's details, all optional; screenshots one HTTPS address a line. */
  longDescription: string;
  screenshotUrls: string;
  supportUrl: string;
  privacyPolicyUrl: string;
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
  longDescription: '',
  screenshotUrls: '',
  supportUrl: '',
  privacyPolicyUrl: '',
};

/** The screenshot addresses the text area holds: one a line, blank lines left out. */
export const screenshotList = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** The app page's details as the server takes them: none is null (an edit sends null to remove one). */
function pageDetails(values: AppFormValues) {
  const screenshots = screenshotList(values.screenshotUrls);
  return {
    longDescription: values.longDescription.trim() === '' ? null : values.longDescription.trim(),
    screenshotUrls: screenshots.length ? screenshots : null,
    supportUrl: values.supportUrl.trim() || null,
    privacyPolicyUrl: values.privacyPolicyUrl.trim() || null,
  };
}

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
    // Only the details that changed, so a new app without them, and an edit that leaves them, send none.
    ...changedDetails(pageDetails(values), pageDetails(initial)),
  };
}

function changedDetails(now: ReturnType<typeof pageDetails>, before: ReturnType<typeof pageDetails>): Partial<ReturnType<typeof pageDetails>> {
  const changed: Partial<ReturnType<typeof pageDetails>> = {};
  for (const key of Object.keys(now) as (keyof typeof now)[]) {
    if (JSON.stringify(now[key]) !== JSON.stringify(before[key])) Object.assign(changed, { [key]: now[key] });
  }
  return changed;
}

export type AppField = keyof AppFormValues;

/**
 * Problems the form can tell before sending: the server's rules applied to exactly what would be sent
 * (trimmed), so the form never refuses what the server would accept.
 */
export function localProblems(values: AppFormValues, t: Translate): Partial<Record<AppField, string>> {
  const input = toAppInput(values);
  const problems: Partial<Record<AppField, string>> = {};
  const say = (field: AppField, issue: AppRuleIssue | undefined, required: MessageKey = 'rule.urlRequired', showCount = true) => {
    if (issue) problems[field] = sentence(t, issue, required, showCount);
  };
  say('name', appNameIssue(input.name), 'rule.nameRequired', false);
  say('shortDescription', shortDescriptionIssue(input.shortDescription), 'rule.descriptionRequired');
  for (const field of ['iconUrl', 'appUrl'] as const) say(field, urlIssue(input[field], HTTPS_ONLY), 'rule.urlRequired');
  say('webhookUrl', webhookUrlIssue(input.webhookUrl));
  if (values.category === '') problems.category = t('rule.categoryRequired');
  if (values.pricing === 'PAID') say('pricePoints', pricePointsIssue(input.pricePoints));
  const details = pageDetails(values);
  say('longDescription', longDescriptionIssue(details.longDescription));
  const screenshot = screenshotUrlsIssue(details.screenshotUrls);
  if (screenshot) problems.screenshotUrls = screenshotProblem(t, screenshot.index, sentence(t, screenshot.issue, 'rule.urlRequired', true));
  for (const field of ['supportUrl', 'privacyPolicyUrl'] as const) say(field, optionalHttpsUrlIssue(details[field]));
  return problems;
}

/** Which screenshot a problem is about ("Screenshot 2: ..."), numbered from 1 as the list reads. */
export const screenshotProblem = (t: Translate, index: number | undefined, problem: string) =>
  index === undefined ? problem : t('form.screenshotProblem', { number: index + 1, problem });
