import { conflict, ErrorCode, forbidden, PlazaError } from '../../platform/errors.js';

/** `extensions.reason` of sign-in, role and API token refusals: stable values clients branch on (the messages are for people). */
export const IdentityErrorReason = {
  /** UNAUTHENTICATED: the credential is neither a Plaza sign-in nor an API token. */
  NOT_A_PLAZA_TOKEN: 'NOT_A_PLAZA_TOKEN',
  /** UNAUTHENTICATED: the sign-in was ended (signed out) or never existed. */
  SIGNED_OUT: 'SIGNED_OUT',
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  API_TOKEN_UNKNOWN: 'API_TOKEN_UNKNOWN',
  API_TOKEN_REVOKED: 'API_TOKEN_REVOKED',
  API_TOKEN_EXPIRED: 'API_TOKEN_EXPIRED',
  /** FORBIDDEN: revoking someone else's API token. */
  NOT_TOKEN_OWNER: 'NOT_TOKEN_OWNER',
  TOO_MANY_TOKENS: 'TOO_MANY_TOKENS',
  OWN_ADMIN_ROLE: 'OWN_ADMIN_ROLE',
  ROLE_FROM_CONFIGURATION: 'ROLE_FROM_CONFIGURATION',
  ROLE_IMPLIED_BY_ADMIN: 'ROLE_IMPLIED_BY_ADMIN',
} as const;
export type IdentityErrorReason = (typeof IdentityErrorReason)[keyof typeof IdentityErrorReason];

const unauthenticated = (message: string, reason: IdentityErrorReason) => new PlazaError(ErrorCode.UNAUTHENTICATED, message, undefined, reason);

export const identityErrors = {
  notAPlazaToken: () => unauthenticated('The token is not a Plaza sign-in or API token', IdentityErrorReason.NOT_A_PLAZA_TOKEN),
  signedOut: () => unauthenticated('This sign-in is not valid (signed out or unknown); sign in again', IdentityErrorReason.SIGNED_OUT),
  sessionExpired: () => unauthenticated('Your sign-in has expired; sign in again', IdentityErrorReason.SESSION_EXPIRED),
  apiTokenUnknown: () => unauthenticated('This API token is not known', IdentityErrorReason.API_TOKEN_UNKNOWN),
  apiTokenRevoked: () => unauthenticated('This API token has been revoked', IdentityErrorReason.API_TOKEN_REVOKED),
  apiTokenExpired: (expiresAt: Date) => unauthenticated(`This API token expired at ${expiresAt.toISOString()}`, IdentityErrorReason.API_TOKEN_EXPIRED),
  notTokenOwner: () => forbidden('You can revoke only your own API tokens', IdentityErrorReason.NOT_TOKEN_OWNER),
  tooManyTokens: (max: number) => conflict(`You already have ${max} live API tokens; revoke one you no longer use first`, IdentityErrorReason.TOO_MANY_TOKENS),
  ownAdminRole: () => conflict('You cannot revoke your own ADMIN role; another admin can', IdentityErrorReason.OWN_ADMIN_ROLE),
  roleFromConfiguration: (email: string, role: string, variable: string) =>
    conflict(`${email} is ${role} by configuration (${variable}); remove the address there and restart Plaza to take the role away`, IdentityErrorReason.ROLE_FROM_CONFIGURATION),
  roleImpliedByAdmin: (email: string) => conflict(`${email} is an ADMIN, and admins also review; revoke ADMIN to take REVIEWER away`, IdentityErrorReason.ROLE_IMPLIED_BY_ADMIN),
};
