import type { ApiTokenScope, Role } from './roles.js';

/** Who is asking: a signed-in person, or an integrator's API token acting for its owner. */
export type Principal =
  | { kind: 'session'; userId: string; email: string; roles: ReadonlySet<Role>; sessionId: string; expiresAt?: Date }
  | {
      kind: 'apiToken';
      userId: string;
      email: string;
      roles: ReadonlySet<Role>;
      tokenId: string;
      scopes: ReadonlySet<string>;
      expiresAt?: Date;
      /**
       * The owner's app ids, read in the token's own statement (a token that may read deliveries, on an HTTP
       * request): what RequestContext.ownedAppIds answers for that request. Only for the request that
       * authenticated: a graphql-ws connection's principal outlives it and carries none.
       */
      ownedAppIds?: readonly string[];
    };

/** The id that revokes this principal's credential: its session or its API token. */
export const credentialIdOf = (principal: Principal) => (principal.kind === 'session' ? principal.sessionId : principal.tokenId);

/**
 * The principal when it may act on `scope`: a person always, an API token only with that scope.
 * Used by operations that are open to everyone but show more to the right principal.
 */
export function principalWithScope(principal: Principal | null | undefined, scope: ApiTokenScope): Principal | null {
  if (!principal) return null;
  if (principal.kind === 'apiToken' && !principal.scopes.has(scope)) return null;
  return principal;
}

/** Admins signed in as people see every app's deliveries; an API token only ever reads its owner's (its roles are only its scopes). */
export const seesEveryApp = (principal: Principal | null | undefined): boolean => principal?.kind === 'session' && principal.roles.has('ADMIN');

/** The principal when it is a signed-in person, else null: for what no token scope covers. */
export function signedInPerson(principal: Principal | null | undefined): Principal | null {
  return principal?.kind === 'session' ? principal : null;
}
