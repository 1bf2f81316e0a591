import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config.js';
import { credentialIdOf, type Principal } from '../modules/identity/principal.js';
import { credentialOf } from '../modules/identity/session-cookie.js';
import type { RequestContext } from './context.js';
import { formatError } from './errors.js';
import { assertOperationWithinLimits, GRAPHQL_LIMITS, limitRules } from './graphql-limits.js';
import { logger } from './logger.js';
import { requestIdFrom } from './request-log.js';
import { Topic } from './pubsub.js';
import type { RequestGuards } from './request-guards.js';
import type { Services } from './services.js';
import { sharedSubscriptionExecution } from './subscription-execution.js';

/** A client that opens a socket and never says who it is holds it this long at most. */
const CONNECTION_INIT_TIMEOUT_MS = 3_000;
/** setTimeout's longest delay; a credential that lives longer is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Everything authorization reads about a subscriber: those equal in it may share the result of an update. */
function audienceOf({ principal }: RequestContext): string {
  if (!principal) return 'anonymous';
  const scopes = principal.kind === 'apiToken' ? [...principal.scopes].sort().join(',') : '';
  return [principal.kind, principal.userId, [...principal.roles].sort().join(','), scopes].join('|');
}

/**
 * Browsers send their page's origin with a WebSocket upgrade, and cookies with it: a page of another
 * site must not ride a signed-in user's cookie into their live updates. Clients that are not browsers
 * send no Origin and must present a bearer token. Outside production, pages on loopback (a dev server)
 * are the platform too.
 */
export function isAllowedOrigin(origin: string | undefined, config: Config): boolean {
  if (!origin) return true;
  if (origin === config.platformOrigin) return true;
  if (config.production) return false;
  try {
    return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * Closes the socket when its credential is revoked (sign-out, a revoked API token: published on every
 * process through PostgreSQL) or expires. Returns what to undo when the socket closes first.
 */
function endWithCredential(socket: WebSocket, principal: Principal, services: Services): () => void {
  const close = (reason: string) => socket.close(CloseCode.Forbidden, reason);
  const stopListening = services.pubSub.addListener(Topic.CREDENTIAL_REVOKED, credentialIdOf(principal), () => close('Forbidden: the credential was revoked'));
  let timer: NodeJS.Timeout | undefined;
  const armExpiry = () => {
    if (!principal.expiresAt) return;
    const left = principal.expiresAt.getTime() - Date.now();
    timer = left <= 0 ? undefined : setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS));
    if (left <= 0) close('Forbidden: the credential expired');
  };
  armExpiry();
  return () => {
    stopListening();
    clearTimeout(timer);
  };
}

/** graphql-ws on /graphql: authenticated in onConnect, the same limits as over HTTP, live only while the credential is. */
export function attachWebSocketServer(server: Server, schema: GraphQLSchema, services: Services, guards: RequestGuards) {
  const wsServer = new WebSocketServer({
    server,
    path: '/graphql',
    verifyClient: ({ origin }: { origin?: string }) => isAllowedOrigin(origin, services.config),
  });
  // A socket's upgrade gets a request id like any HTTP request (echoed in the 101 response); the
  // connection's lines, unexpected errors of its operations included, carry it.
  const requestIds = new WeakMap<IncomingMessage, string>();
  wsServer.on('headers', (headers, request) => {
    const requestId = requestIdFrom(request.headers['x-request-id']);
    requestIds.set(request, requestId);
    headers.push(`X-Request-Id: ${requestId}`);
  });
  const execution = sharedSubscriptionExecution(schema, (context) => audienceOf(context as RequestContext), {
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    validationRules: limitRules,
  });
  return useServer<{ authorization?: string }, { context?: RequestContext }>(
    {
      schema,
      ...execution,
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      // Subscriptions are personal, so a connection without a valid credential is closed with 4403.
      onConnect: async (ctx) => {
        const token = credentialOf({ authorization: ctx.connectionParams?.authorization, cookie: ctx.extra.request.headers.cookie });
        if (!token) return false;
        try {
          const context = await guards.context(token, ctx.extra.request.socket.remoteAddress ?? null);
          ctx.extra.context = { ...context, log: logger.child({ requestId: requestIds.get(ctx.extra.request) ?? requestIdFrom(undefined) }) };
          if (context.principal) ctx.extra.socket.once('close', endWithCredential(ctx.extra.socket, context.principal, services));
          return true;
        } catch (err) {
          if (err instanceof GraphQLError) return false;
          throw err;
        }
      },
      // Each operation on a socket counts like a request, and is priced like one over HTTP.
      onSubscribe: (ctx, _id, payload) => {
        const context = ctx.extra.context!;
        try {
          guards.admit(context.principal, context.ipAddress, { countAddress: true });
          assertOperationWithinLimits(schema, execution.parse(payload.query), payload.variables ?? undefined, payload.operationName);
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        return undefined;
      },
      context: (ctx) => ctx.extra.context!,
      // The same error shapes as over HTTP (contract codes, the field at fault, nothing internal).
      onError: (ctx, _id, _payload, errors) => {
        const log = ctx.extra.context?.log ?? logger;
        log.debug({ errors }, 'subscription error');
        return errors.map((error) => formatError(error.toJSON(), error, log));
      },
      onNext: (ctx, _id, _payload, _args, result) =>
        result.errors?.length ? { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error, ctx.extra.context?.log ?? logger)) } : undefined,
    },
    wsServer,
  );
}
