import type { Config } from '../../config.js';
import { badInput } from '../../platform/errors.js';
import { Role } from '../../platform/auth/roles.js';

/**
 * The roles an API token acts with, whoever owns it: reviewing and administering are done by a
 * person signed in, so a leaked integration token of a reviewer or admin opens nothing extra.
 */
export const API_TOKEN_ROLES: readonly Role[] = [Role.DEVELOPER, Role.USER];

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

/** The roles an admin may grant and revoke (grantRole, revokeRole); DEVELOPER and USER belong to everyone. */
export const GRANTABLE_ROLES: readonly Role[] = [Role.REVIEWER, Role.ADMIN];

/** The role named exactly, or BAD_USER_INPUT on `role`. */
export function grantableRole(role: string): Role {
  const found = GRANTABLE_ROLES.find((r) => r === role);
  if (!found) throw badInput('role', `role must be ${GRANTABLE_ROLES.join(' or ')} (got "${role.slice(0, 40)}"); every account is already a DEVELOPER and a USER`);
  return found;
}
