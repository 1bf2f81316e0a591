import type { NextFunction, Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { Config } from '../config.js';
import type { Principal } from '../platform/auth/principal.js';
import { API_TOKEN_PREFIX, type IdentityService, requestCredential } from '../modules/identity/index.js';
import type { RequestContext } from '../platform/auth/context.js';
import { isDatabaseUnavailable } from '../platform/database-unavailable.js';
import { ErrorCode, PlazaError, serviceUnavailable } from '../platform/errors.js';
import { sendPlazaError } from '../platform/http-errors.js';
import { rateLimited, RateLimiter } from '../platform/rate-limiter.js';

/**
 * Who is asking, and may they ask now: authentication and rate limits for HTTP and graphql-ws alike.
 * An API token is counted on its own bucket (it names its client better than an address behind NAT)
 * and on its account's, which all of the account's tokens share (more tokens buy no more requests);
 * everything else, and every failed credential, on its address's bucket.
 */
export class RequestGuards {
  private readonly byAddress: RateLimiter;
  private readonly byApiToken: RateLimiter;
  private readonly byAccount: RateLimiter;

  constructor(
    private readonly identity: Pick<IdentityService, 'authenticate'>,
    config: Config,
    /** The apps feature's read of the apps one account owns, for RequestContext.ownedAppIds. */
    private readonly appIdsOwnedBy: (ownerId: string) => Promise<readonly string[]>,
  ) {
    this.byAddress = new RateLimiter(config.rateLimitPerAddress);
    this.byApiToken = new RateLimiter(config.rateLimitPerApiToken);
    this.byAccount = new RateLimiter(config.rateLimitPerAccount);
  }

  /**
   * Takes one request from an address's bucket before any work, for /graphql and /auth; returns the seconds
   * to wait when it has used its minute, else 0. An API token's requests are counted on the token once it is
   * authenticated; one from an address whose bucket failed credentials have emptied is still refused here.
   */
  addressWait(address: string, credential: string | undefined): number {
    return credential?.startsWith(API_TOKEN_PREFIX) ? this.byAddress.waitFor(address) : this.byAddress.take(address);
  }

  /** Express middleware for /graphql and /auth: refuses an address that has used its minute, before any work. */
  readonly limitAddress = (req: Request, res: Response, next: NextFunction): void => {
    const wait = this.addressWait(req.ip ?? 'unknown', requestCredential(req));
    if (wait === 0) return next();
    res.set('retry-after', String(wait));
    sendPlazaError(res, rateLimited('address', wait));
  };

  /**
   * The context of one HTTP request, or of a graphql-ws connection (`connection`), whose operations each get their
   * own from operationContext; a bad credential or an empty bucket is a GraphQLError with its HTTP status.
   */
  async context(token: string | undefined, ipAddress: string | null, { connection = false }: { connection?: boolean } = {}): Promise<RequestContext> {
    try {
      // An HTTP request's API token brings its owner's app ids in its own statement (one round trip less for a Webhook
      // Logs page); a connection's does not: it outlives what was read, and its operations read them when they ask.
      const principal = token ? await this.authenticate(token, ipAddress, !connection) : null;
      this.admit(principal, ipAddress, { countAddress: false });
      return { principal, ipAddress, ownedAppIds: this.ownedAppIdsOf(principal) };
    } catch (err) {
      if (err instanceof PlazaError) throw asHttpError(err);
      // Who is asking could not be read: 503 with Retry-After, not Apollo's 500 "Context creation failed".
      if (isDatabaseUnavailable(err)) throw asHttpError(serviceUnavailable());
      throw err;
    }
  }

  /**
   * One graphql-ws operation's context: its connection's, with its own reading of the apps the principal owns
   * (apps are submitted and deleted while a connection lives, so the connection keeps none).
   */
  operationContext(connection: RequestContext): RequestContext {
    return { ...connection, ownedAppIds: this.ownedAppIdsOf(connection.principal) };
  }

  /** Read by the first resolver that asks and shared by the others; an HTTP request's API token may have read them already. */
  private ownedAppIdsOf(principal: Principal | null): () => Promise<readonly string[]> {
    let owned: Promise<readonly string[]> | undefined;
    return () => {
      if (owned) return owned;
      if (!principal) owned = Promise.resolve([]);
      else if (principal.kind === 'apiToken' && principal.ownedAppIds) owned = Promise.resolve(principal.ownedAppIds);
      else owned = this.appIdsOwnedBy(principal.userId);
      return owned;
    };
  }

  /**
   * Counts one operation against its bucket. HTTP requests without an API token were counted by
   * limitAddress already (`countAddress: false`); each graphql-ws operation counts here.
   */
  admit(principal: Principal | null, ipAddress: string | null, { countAddress }: { countAddress: boolean }): void {
    if (principal?.kind === 'apiToken') {
      const now = Date.now();
      // The token's own bucket is only looked at until the account's has let the request through: a
      // request refused on either takes from neither.
      const tokenWait = this.byApiToken.waitFor(principal.tokenId, now);
      if (tokenWait > 0) throw rateLimited('API token', tokenWait);
      this.byAccount.consume(principal.userId, 'account', now);
      this.byApiToken.take(principal.tokenId, now);
    } else if (countAddress) this.byAddress.consume(ipAddress ?? 'unknown', 'address');
  }

  private async authenticate(token: string, ipAddress: string | null, ownedApps: boolean): Promise<Principal> {
    try {
      return await this.identity.authenticate(token, { ownedApps });
    } catch (err) {
      // Guessing API tokens costs the guesser's address, so the token path cannot dodge its limit.
      if (err instanceof PlazaError && err.code === ErrorCode.UNAUTHENTICATED && token.startsWith(API_TOKEN_PREFIX)) this.byAddress.take(ipAddress ?? 'unknown');
      throw err;
    }
  }

  close(): void {
    this.byAddress.close();
    this.byApiToken.close();
    this.byAccount.close();
  }
}

/** A bad credential fails the whole request (401, or 429 with Retry-After), so clients see at once why. */
export function asHttpError(err: PlazaError): GraphQLError {
  const retryAfter = err.extensions.retryAfterSeconds;
  const headers = typeof retryAfter === 'number' ? new Map([['retry-after', String(retryAfter)]]) : undefined;
  return new GraphQLError(err.message, { extensions: { ...err.extensions, http: { status: err.httpStatus, ...(headers ? { headers } : {}) } } });
}
