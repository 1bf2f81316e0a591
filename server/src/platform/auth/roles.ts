/**
 * The roles a principal may hold and the scopes an API token may carry: what the auth checker decides
 * on. Who gets which role is the identity feature's business (`modules/identity/roles.ts`).
 */
export const Role = { DEVELOPER: 'DEVELOPER', USER: 'USER', REVIEWER: 'REVIEWER', ADMIN: 'ADMIN' } as const;
export type Role = (typeof Role)[keyof typeof Role];

/** What an integrator's API token may be allowed to do; anything else needs a signed-in person. */
export const API_TOKEN_SCOPES = {
  'deliveries:read': 'Read webhook deliveries and their attempts for your apps',
  'deliveries:write': 'Redeliver webhooks and send test events for your apps',
  'apps:read': 'Read your apps and their review status',
} as const;
export type ApiTokenScope = keyof typeof API_TOKEN_SCOPES;

/** A scope of the table itself, not a name every object has (`toString`, `__proto__`). */
export const isApiTokenScope = (scope: string): scope is ApiTokenScope => Object.hasOwn(API_TOKEN_SCOPES, scope);
