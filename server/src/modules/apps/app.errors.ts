import { conflict, ErrorCode, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of the apps feature's refusals: stable values clients branch on. */
export const AppErrorReason = {
  TOO_MANY_APPS: 'TOO_MANY_APPS',
  /** BAD_USER_INPUT on webhookUrl: the shape allowed http, this server's configuration does not. */
  WEBHOOK_NOT_HTTPS: 'WEBHOOK_NOT_HTTPS',
  /** BAD_USER_INPUT on webhookUrl: it names a loopback, private or otherwise internal address. */
  WEBHOOK_INTERNAL_ADDRESS: 'WEBHOOK_INTERNAL_ADDRESS',
} as const;
export type AppErrorReason = (typeof AppErrorReason)[keyof typeof AppErrorReason];

// Rules the web form cannot run (they depend on the server's configuration) carry a reason, so a client
// can word them in its reader's language.
export const appErrors = {
  webhookNotHttps: () => new PlazaError(ErrorCode.BAD_USER_INPUT, 'webhookUrl must use HTTPS (https://...)', 'webhookUrl', AppErrorReason.WEBHOOK_NOT_HTTPS),
  webhookInternal: (why: string) =>
    new PlazaError(ErrorCode.BAD_USER_INPUT, `webhookUrl cannot point at an internal address: ${why}`, 'webhookUrl', AppErrorReason.WEBHOOK_INTERNAL_ADDRESS),
  tooManyApps: (count: number, limit: number) =>
    conflict(
      `You already have ${count} apps, the most one account may have (${limit}); update one of them instead, or ask the platform's operators to raise MAX_APPS_PER_DEVELOPER`,
      AppErrorReason.TOO_MANY_APPS,
    ),
};
