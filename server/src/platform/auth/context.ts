import type { Logger } from 'pino';
import type { Principal } from './principal.js';
import type { Services } from '../../app/services.js';

/** What every resolver gets: who is asking (if anyone), from where, and the services. */
export interface RequestContext {
  principal: Principal | null;
  ipAddress: string | null;
  services: Services;
  /** The logger of the HTTP request or graphql-ws connection: its lines carry the request id. */
  log?: Logger;
}

/** The principal of a context in which an @Authorized guard has already passed. */
export function requirePrincipal(context: RequestContext): Principal {
  if (!context.principal) throw new Error('requirePrincipal used on an operation without @Authorized');
  return context.principal;
}
