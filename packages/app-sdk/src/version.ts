/**
 * This package's version, sent in the User-Agent of the SDK's own requests (the JWKS fetch). The build
 * stamps package.json's version over this placeholder (scripts/finish-build.mjs); only code run from
 * source sees it.
 */
export const SDK_VERSION: string = '0.0.0-source';

export const SDK_USER_AGENT = `plaza-app-sdk/${SDK_VERSION}`;
