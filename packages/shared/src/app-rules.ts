import { textIssue, type TextIssue } from './readable-text.js';

// The rules of an app listing (SubmitAppInput / UpdateAppInput). The server enforces them; the web form
// runs the same functions so people see a problem while typing. Each side words the issue itself.

export const NAME_MAX_CHARS = 60;
export const SHORT_DESCRIPTION_MAX_CHARS = 120;
export const URL_MAX_CHARS = 2048;
export const PRICE_POINTS_MAX = 1_000_000;
/** The app page's long description: several paragraphs, not a manual. */
export const LONG_DESCRIPTION_MAX_CHARS = 4000;
/** Screenshots on the app page: a strip a visitor scrolls through, not a gallery. */
export const SCREENSHOTS_MAX = 5;

/** App URL and icon: framed and loaded by browsers on a secure page. */
export const HTTPS_ONLY: readonly string[] = ['https:'];
/** Webhooks: the shape allows http; whether plain http is accepted depends on the server's configuration. */
export const WEBHOOK_PROTOCOLS: readonly string[] = ['https:', 'http:'];

export type AppRuleIssue =
  | TextIssue
  | { code: 'REQUIRED' }
  /** `count` and `max` are in characters as people count them (code points). */
  | { code: 'TOO_LONG'; max: number; count: number }
  | { code: 'MULTILINE' }
  /** Measured in UTF-16 units, as URLs are mostly ASCII. */
  | { code: 'URL_TOO_LONG'; max: number }
  | { code: 'NOT_ABSOLUTE_URL' }
  | { code: 'NOT_HTTPS' }
  | { code: 'NOT_HTTP_OR_HTTPS' }
  | { code: 'URL_HAS_CREDENTIALS' }
  | { code: 'URL_WITHOUT_HOST' }
  | { code: 'NOT_POSITIVE_WHOLE_NUMBER' }
  | { code: 'NOT_A_LIST' }
  | { code: 'TOO_MANY_SCREENSHOTS'; max: number; count: number }
  | { code: 'TOO_MANY_POINTS'; max: number };

/** Characters as people count them (code points), so "120 characters" holds for Vietnamese and emoji alike. */
export const charCount = (text: string) => [...text].length;

const isBlank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

export function appNameIssue(value: unknown): AppRuleIssue | undefined {
  if (isBlank(value)) return { code: 'REQUIRED' };
  const text = textIssue(value as string);
  if (text) return text;
  const count = charCount((value as string).trim());
  return count > NAME_MAX_CHARS ? { code: 'TOO_LONG', max: NAME_MAX_CHARS, count } : undefined;
}

export function shortDescriptionIssue(value: unknown): AppRuleIssue | undefined {
  if (isBlank(value)) return { code: 'REQUIRED' };
  const description = value as string;
  // It is shown on the app card, one line.
  if (/[\r\n]/.test(description)) return { code: 'MULTILINE' };
  const text = textIssue(description);
  if (text) return text;
  const count = charCount(description.trim());
  return count > SHORT_DESCRIPTION_MAX_CHARS ? { code: 'TOO_LONG', max: SHORT_DESCRIPTION_MAX_CHARS, count } : undefined;
}

/**
 * The app page's long description is optional (null, undefined or blank means none); it is read as
 * paragraphs, so line breaks and tabs are allowed, and the same invisible characters are not.
 */
export function longDescriptionIssue(value: unknown): AppRuleIssue | undefined {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  if (typeof value !== 'string') return { code: 'REQUIRED' };
  const text = textIssue(value, { multiline: true });
  if (text) return text;
  const count = charCount(value.trim());
  return count > LONG_DESCRIPTION_MAX_CHARS ? { code: 'TOO_LONG', max: LONG_DESCRIPTION_MAX_CHARS, count } : undefined;
}

/** What is wrong with the URL itself once it is there: parse, scheme, credentials, host. */
export function urlShapeIssue(value: string, protocols: readonly string[]): AppRuleIssue | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { code: 'NOT_ABSOLUTE_URL' };
  }
  if (!protocols.includes(url.protocol)) return { code: protocols.includes('http:') ? 'NOT_HTTP_OR_HTTPS' : 'NOT_HTTPS' };
  if (url.username || url.password) return { code: 'URL_HAS_CREDENTIALS' };
  if (!url.hostname) return { code: 'URL_WITHOUT_HOST' };
  return undefined;
}

export function urlIssue(value: unknown, protocols: readonly string[]): AppRuleIssue | undefined {
  if (isBlank(value)) return { code: 'REQUIRED' };
  const url = value as string;
  if (url.length > URL_MAX_CHARS) return { code: 'URL_TOO_LONG', max: URL_MAX_CHARS };
  return textIssue(url) ?? urlShapeIssue(url, protocols);
}

/** The webhook URL is optional: null or undefined means none. */
export const webhookUrlIssue = (value: unknown) => (value === null || value === undefined ? undefined : urlIssue(value, WEBHOOK_PROTOCOLS));

/** Paid apps only; null or undefined (a free app) passes here, and the service checks it against the pricing. */
export function pricePointsIssue(value: unknown): AppRuleIssue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return { code: 'NOT_POSITIVE_WHOLE_NUMBER' };
  return value > PRICE_POINTS_MAX ? { code: 'TOO_MANY_POINTS', max: PRICE_POINTS_MAX } : undefined;
}

/** Support and privacy policy pages: optional (null, undefined or blank means none), HTTPS as the icon. */
export const optionalHttpsUrlIssue = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'string' && value.trim() === '') ? undefined : urlIssue(value, HTTPS_ONLY);

/**
 * Screenshots: at most SCREENSHOTS_MAX HTTPS URLs, each by the icon's rule (browsers load them on a secure
 * page). `index` says which one is wrong; null or undefined means none.
 */
export function screenshotUrlsIssue(value: unknown): { index?: number; issue: AppRuleIssue } | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Array.isArray(value)) return { issue: { code: 'NOT_A_LIST' } };
  if (value.length > SCREENSHOTS_MAX) return { index: SCREENSHOTS_MAX, issue: { code: 'TOO_MANY_SCREENSHOTS', max: SCREENSHOTS_MAX, count: value.length } };
  for (const [index, url] of value.entries()) {
    const issue = urlIssue(url, HTTPS_ONLY);
    if (issue) return { index, issue };
  }
  return undefined;
}
