import {
  appNameIssue,
  HTTPS_ONLY,
  longDescriptionIssue,
  optionalHttpsUrlIssue,
  pricePointsIssue,
  screenshotUrlsIssue,
  shortDescriptionIssue,
  urlIssue,
  webhookUrlIssue,
  type AppRuleIssue,
} from '@plaza/shared';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { describeTextIssue } from '../../platform/readable-text.js';
import { CATEGORIES, Pricing, SUBSCRIBABLE_EVENTS } from './app.types.js';

// The listing rules themselves are in @plaza/shared, where the web form runs them too; these decorators
// apply them to the DTOs and word the answer for the API ("name must be at most 60 characters ...").

/** The API's wording of an issue, after the field name. */
function describe(issue: AppRuleIssue): string {
  switch (issue.code) {
    case 'REQUIRED':
      return 'is required';
    case 'TOO_LONG':
      return `must be at most ${issue.max} characters (it has ${issue.count})`;
    case 'MULTILINE':
      return 'must be one line (it is shown on the app card)';
    case 'URL_TOO_LONG':
      return `must be at most ${issue.max} characters`;
    case 'NOT_ABSOLUTE_URL':
      return 'must be an absolute URL such as https://example.com/app';
    case 'NOT_HTTPS':
      return 'must use HTTPS (https://...)';
    case 'NOT_HTTP_OR_HTTPS':
      return 'must use http or https';
    case 'URL_HAS_CREDENTIALS':
      return 'must not contain a user name or password';
    case 'URL_WITHOUT_HOST':
      return 'must name a host';
    case 'NOT_POSITIVE_WHOLE_NUMBER':
      return 'must be a whole number of points greater than 0';
    case 'TOO_MANY_POINTS':
      return `must be at most ${issue.max} points`;
    case 'NOT_A_LIST':
      return 'must be a list';
    case 'TOO_MANY_SCREENSHOTS':
      return `is one too many: at most ${issue.max} screenshots (${issue.count} given)`;
    case 'CONTROL_CHARACTER':
    case 'HIDDEN_CHARACTER':
    case 'UNPAIRED_SURROGATE':
      return describeTextIssue(issue);
  }
}

const worded = (check: (value: unknown) => AppRuleIssue | undefined) => (value: unknown) => {
  const issue = check(value);
  return issue && describe(issue);
};

const rule = (name: string, check: (value: unknown) => string | undefined, options?: ValidationOptions) =>
  ValidateBy(
    {
      name,
      validator: {
        validate: (value) => check(value) === undefined,
        defaultMessage: (args) => `${args?.property} ${check(args?.value)}`,
      },
    },
    options,
  );

export const IsAppName = () => rule('appName', worded(appNameIssue));

export const IsShortDescription = () => rule('shortDescription', worded(shortDescriptionIssue));

export const IsHttpsUrl = () =>
  rule(
    'httpsUrl',
    worded((v) => urlIssue(v, HTTPS_ONLY)),
  );

export const IsLongDescription = () => rule('longDescription', worded(longDescriptionIssue));

/** Support and privacy policy pages: optional, HTTPS. */
export const IsOptionalHttpsUrl = () => rule('optionalHttpsUrl', worded(optionalHttpsUrlIssue));

/**
 * The message names the one screenshot that is wrong ("screenshotUrls[2] must use HTTPS"), and
 * platform/errors.ts answers that path as the field, so a form can put the problem beside that URL.
 */
export const IsScreenshotUrls = () =>
  ValidateBy({
    name: 'screenshotUrls',
    validator: {
      validate: (value) => screenshotUrlsIssue(value) === undefined,
      defaultMessage: (args) => {
        const found = screenshotUrlsIssue(args?.value);
        if (!found) return '';
        return `${args?.property}${found.index === undefined ? '' : `[${found.index}]`} ${describe(found.issue)}`;
      },
    },
  });

/** The scheme rule for webhooks depends on configuration, so the service checks https; this checks the shape. */
export const IsWebhookUrl = () => rule('webhookUrl', worded(webhookUrlIssue));

export const IsCategory = () =>
  rule('category', (v) => (typeof v === 'string' && (CATEGORIES as readonly string[]).includes(v.trim().toLowerCase()) ? undefined : `must be one of ${CATEGORIES.join(', ')}`));

/** GraphQL checks the enum, but an optional field may still arrive as an explicit null. */
export const IsPricing = () => rule('pricing', (v) => ((Object.values(Pricing) as unknown[]).includes(v) ? undefined : 'must be FREE or PAID'));

export const IsPricePoints = () => rule('pricePoints', worded(pricePointsIssue));

/**
 * At least one of the four business events (an app that wants none removes its webhook URL instead, so
 * a webhook never sits there silently); APP_TEST is not a subscription, test events are always sent.
 * Null or absent means the default (submit) or no change (update).
 */
export const IsWebhookEvents = () =>
  rule('webhookEvents', (v) => {
    if (v === null || v === undefined) return undefined;
    if (!Array.isArray(v) || v.length === 0) return `must name at least one of ${SUBSCRIBABLE_EVENTS.join(', ')}; to receive no events, remove the webhook URL`;
    const other = v.find((event) => !SUBSCRIBABLE_EVENTS.includes(event));
    if (other !== undefined) return `cannot include ${String(other)}: choose from ${SUBSCRIBABLE_EVENTS.join(', ')} (test events are always sent)`;
    return undefined;
  });
