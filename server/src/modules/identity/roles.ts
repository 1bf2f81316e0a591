import type { Config } from '../../config.js';

export const Role = { DEVELOPER: 'DEVELOPER', USER: 'USER', REVIEWER: 'REVIEWER', ADMIN: 'ADMIN' } as const;
export type Role = (typeof Role)[keyof typeof Role];

/** What an integrator's API token may be allowed to do; anything else needs a signed-in person. */
export const API_TOKEN_SCOPES = {
  'deliveries:read': 'Read webhook deliveries and their attempts for your apps',
  'deliveries:write': 'Redeliver webhooks and send test events for your apps',
  'apps:read': 'Read your apps and their review status',
} as const;
export type ApiTokenScope = keyof typeof API_TOKEN_SCOPES;

/**
 * The roles an API token acts with, whoever owns it: reviewing and administering are done by a
 * person signed in, so a leaked integration token of a reviewer or admin opens nothing extra.
 */
export const API_TOKEN_ROLES: readonly Role[] = [Role.DEVELOPER, Role.USER];

/** A scope of the table itself, not a name every object has (`toString`, `__proto__`). */
export const isApiTokenScope = (scope: string): scope is ApiTokenScope => Object.hasOwn(API_TOKEN_SCOPES, scope);

/** Every account is a developer and a user; configuration and admins grant the rest. Admins also review. */
export function rolesOf(email: string, grantedRoles: string[], config: Pick<Config, 'reviewerEmails' | 'adminEmails'>): Role[] {
  const roles = new Set<Role>([Role.DEVELOPER, Role.USER]);
  const lower = email.toLowerCase();
  if (config.reviewerEmails.has(lower) || grantedRoles.includes(Role.REVIEWER)) roles.add(Role.REVIEWER);
  if (config.adminEmails.has(lower) || grantedRoles.includes(Role.ADMIN)) {
    roles.add(Role.ADMIN);
    roles.add(Role.REVIEWER);
  }
  return [...roles];
}
