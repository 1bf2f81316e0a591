import { conflict, ErrorCode, forbidden, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the apps feature's refusals: stable values clients branch on. */
export const AppErrorReason = {
  TOO_MANY_APPS: 'TOO_MANY_APPS',
  /** BAD_USER_INPUT on webhookUrl: the shape allowed http, this server's configuration does not. */
  WEBHOOK_NOT_HTTPS: 'WEBHOOK_NOT_HTTPS',
  /** BAD_USER_INPUT on webhookUrl: it names a loopback, private or otherwise internal address. */
  WEBHOOK_INTERNAL_ADDRESS: 'WEBHOOK_INTERNAL_ADDRESS',
  /** BAD_USER_INPUT on pricePoints: at this server's POINT_VALUE_VND the price is more than one purchase can charge. */
  PRICE_NOT_CHARGEABLE: 'PRICE_NOT_CHARGEABLE',
  /** FORBIDDEN: the app is visible to the caller, but only its owner may do this (change it, its secret, its webhook). */
  NOT_APP_OWNER: 'NOT_APP_OWNER',
} as const;
export type AppErrorReason = (typeof AppErrorReason)[keyof typeof AppErrorReason];

// Rules the web form cannot run (they depend on the server's configuration) carry a reason, so a client
// can word them in its reader's language.
export const appErrors = {
  webhookNotHttps: () => new PlazaError(ErrorCode.BAD_USER_INPUT, 'webhookUrl must use HTTPS (https://...)', 'webhookUrl', AppErrorReason.WEBHOOK_NOT_HTTPS),
  webhookInternal: (why: string) =>
    new PlazaError(ErrorCode.BAD_USER_INPUT, `webhookUrl cannot point at an internal address: ${why}`, 'webhookUrl', AppErrorReason.WEBHOOK_INTERNAL_ADDRESS),
  priceNotChargeable: (max: number, pointValueVnd: number, chargeMaxVnd: number) =>
    new PlazaError(
      ErrorCode.BAD_USER_INPUT,
      `pricePoints must be at most ${max} points: at ${pointValueVnd} VND a point (POINT_VALUE_VND) a larger price is more than one purchase can charge (${chargeMaxVnd} VND)`,
      'pricePoints',
      AppErrorReason.PRICE_NOT_CHARGEABLE,
    ),
  notAppOwner: (message: string) => forbidden(message, AppErrorReason.NOT_APP_OWNER),
  tooManyApps: (count: number, limit: number) =>
    conflict(
      `You already have ${count} apps, the most one account may have (${limit}); update one of them instead, or ask the platform's operators to raise MAX_APPS_PER_DEVELOPER`,
      AppErrorReason.TOO_MANY_APPS,
    ),
};
