/**
 * This package's version, sent as `User-Agent: plaza-cli/<version>` and printed by `plaza --version`. The
 * build stamps package.json's version over this placeholder (rolldown.config.mjs); only code run from
 * source sees it.
 */
export const CLI_VERSION: string = '0.0.0-source';

export const CLI_USER_AGENT = `plaza-cli/${CLI_VERSION}`;
