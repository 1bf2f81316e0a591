import type { AuthChecker } from 'type-graphql';
import type { ApiTokenScope, Role } from './roles.js';
import type { RequestContext } from './context.js';
import { forbidden, unauthenticated } from '../errors.js';

const SCOPE_PREFIX = 'scope:';

/** An @Authorized() requirement that lets API tokens with this scope through. */
export const tokenScope = (scope: ApiTokenScope) => `${SCOPE_PREFIX}${scope}`;

/**
 * The one place that decides who may call an operation. `@Authorized()` needs a signed-in person;
 * role names narrow it to those roles; a `tokenScope(...)` entry also admits API tokens holding it.
 * API tokens are refused everywhere else, so a leaked read token cannot change anything.
 */
export const authChecker: AuthChecker<RequestContext, string> = ({ context }, requirements) => {
  const principal = context.principal;
  if (!principal) throw unauthenticated();
  const roles = requirements.filter((r) => !r.startsWith(SCOPE_PREFIX)) as Role[];
  const scopes = requirements.filter((r) => r.startsWith(SCOPE_PREFIX)).map((r) => r.slice(SCOPE_PREFIX.length));
  if (principal.kind === 'apiToken') {
    if (scopes.length === 0) throw forbidden('API tokens cannot do this; sign in to the portal instead');
    if (!scopes.some((s) => principal.scopes.has(s))) throw forbidden(`This API token lacks the scope ${scopes.join(' or ')}`);
    // Roles are for people signed in; a token of a reviewer or admin is still only its scopes.
    if (roles.length > 0) throw forbidden(`API tokens act only within their scopes; sign in as a ${roles.join(' or ').toLowerCase()} to do this`);
  }
  if (roles.length > 0 && !roles.some((r) => principal.roles.has(r))) throw forbidden(`Only a ${roles.join(' or ').toLowerCase()} may do this`);
  return true;
};
