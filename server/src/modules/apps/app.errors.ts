import { conflict } from '../../platform/errors.js';

/** `extensions.reason` of the apps feature's refusals: stable values clients branch on. */
export const AppErrorReason = {
  TOO_MANY_APPS: 'TOO_MANY_APPS',
} as const;
export type AppErrorReason = (typeof AppErrorReason)[keyof typeof AppErrorReason];

export const appErrors = {
  tooManyApps: (count: number, limit: number) =>
    conflict(
      `You already have ${count} apps, the most one account may have (${limit}); update one of them instead, or ask the platform's operators to raise MAX_APPS_PER_DEVELOPER`,
      AppErrorReason.TOO_MANY_APPS,
    ),
};
