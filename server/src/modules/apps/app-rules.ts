import { ValidateBy, type ValidationOptions } from 'class-validator';
import { textProblem } from '../../platform/readable-text.js';
import { CATEGORIES, Pricing } from './app.types.js';

export const NAME_MAX_CHARS = 60;
export const SHORT_DESCRIPTION_MAX_CHARS = 120;
export const URL_MAX_CHARS = 2048;
export const PRICE_POINTS_MAX = 1_000_000;

/** Characters as people count them (code points), so "120 characters" holds for Vietnamese and emoji alike. */
export const charCount = (text: string) => [...text].length;

/** Why a URL is not acceptable, or undefined when it is. */
export function urlProblem(value: unknown, protocols: string[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'is required';
  if (value.length > URL_MAX_CHARS) return `must be at most ${URL_MAX_CHARS} characters`;
  const text = textProblem(value);
  if (text) return text;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL such as https://example.com/app';
  }
  if (!protocols.includes(url.protocol)) return protocols.includes('http:') ? 'must use http or https' : 'must use HTTPS (https://...)';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (!url.hostname) return 'must name a host';
  return undefined;
}

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

export const IsAppName = () =>
  rule('appName', (v) => {
    if (typeof v !== 'string' || v.trim() === '') return 'is required';
    const text = textProblem(v);
    if (text) return text;
    if (charCount(v.trim()) > NAME_MAX_CHARS) return `must be at most ${NAME_MAX_CHARS} characters (it has ${charCount(v.trim())})`;
    return undefined;
  });

export const IsShortDescription = () =>
  rule('shortDescription', (v) => {
    if (typeof v !== 'string' || v.trim() === '') return 'is required';
    if (/[\r\n]/.test(v)) return 'must be one line (it is shown on the app card)';
    const text = textProblem(v);
    if (text) return text;
    const count = charCount(v.trim());
    if (count > SHORT_DESCRIPTION_MAX_CHARS) return `must be at most ${SHORT_DESCRIPTION_MAX_CHARS} characters (it has ${count})`;
    return undefined;
  });

export const IsHttpsUrl = () => rule('httpsUrl', (v) => urlProblem(v, ['https:']));

/** The scheme rule for webhooks depends on configuration, so the service checks https; this checks the shape. */
export const IsWebhookUrl = () => rule('webhookUrl', (v) => (v === null || v === undefined ? undefined : urlProblem(v, ['https:', 'http:'])));

export const IsCategory = () =>
  rule('category', (v) => (typeof v === 'string' && (CATEGORIES as readonly string[]).includes(v.trim().toLowerCase()) ? undefined : `must be one of ${CATEGORIES.join(', ')}`));

/** GraphQL checks the enum, but an optional field may still arrive as an explicit null. */
export const IsPricing = () => rule('pricing', (v) => ((Object.values(Pricing) as unknown[]).includes(v) ? undefined : 'must be FREE or PAID'));

export const IsPricePoints = () =>
  rule('pricePoints', (v) => {
    if (v === null || v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return 'must be a whole number of points greater than 0';
    if (v > PRICE_POINTS_MAX) return `must be at most ${PRICE_POINTS_MAX} points`;
    return undefined;
  });
