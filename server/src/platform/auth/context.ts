import type { Logger } from 'pino';
import type { Principal } from './principal.js';

/** What every resolver gets: who is asking (if anyone) and from where; services arrive by injection (resolver constructors). */
export interface RequestContext {
  principal: Principal | null;
  ipAddress: string | null;
  /**
   * The ids of the apps the principal owns (none when signed out), in no order: read once per HTTP request or
   * graphql-ws operation, by the first resolver that asks, and shared by the others (an endpoint page's health,
   * the Webhook Logs). An API token that may read deliveries brings them in its own statement, so a Webhook Logs
   * page costs no statement for them.
   */
  ownedAppIds(): Promise<readonly string[]>;
  /** The logger of the HTTP request or graphql-ws connection: its lines carry the request id. */
  log?: Logger;
}

/** The principal of a context in which an @Authorized guard has already passed. */
export function requirePrincipal(context: RequestContext): Principal {
  if (!context.principal) throw new Error('requirePrincipal used on an operation without @Authorized');
  return context.principal;
}
