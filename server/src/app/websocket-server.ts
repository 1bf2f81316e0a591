import type { IncomingMessage, Server } from 'node:http';
import { getOperationAST, getVariableValues, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Config } from '../config.js';
import { credentialIdOf, type Principal } from '../platform/auth/principal.js';
import { credentialOf } from '../modules/identity/index.js';
import type { RequestContext } from '../platform/auth/context.js';
import { formatError, isUnavailableError } from '../platform/errors.js';
import { assertOperationWithinLimits, GRAPHQL_LIMITS, limitRules } from '../platform/graphql-limits.js';
import { logger } from '../platform/logger.js';
import { requestIdFrom } from '../platform/request-log.js';
import { Topic } from '../platform/pubsub.js';
import type { RequestGuards } from './request-guards.js';
import type { Services } from './services.js';
import { sharedSubscriptionExecution } from '../platform/subscription-execution.js';
import { FRAME_TARGET, FrameOutbox, type FramedExecutionArgs } from '../platform/subscription-frames.js';
import type { SocketSubscriptions } from '../platform/subscription-limits.js';

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
 * process through PostgreSQL) or expires, and a signed-in person's socket when an admin revokes one of
 * their roles: a socket keeps the roles it connected with, so it must not outlive them (clients
 * reconnect and act with the roles they now have). Returns what to undo when the socket closes first.
 */
function endWithCredential(socket: WebSocket, principal: Principal, pubSub: Services['pubSub']): () => void {
  const close = (reason: string) => socket.close(CloseCode.Forbidden, reason);
  const stopListening = pubSub.addListener(Topic.CREDENTIAL_REVOKED, credentialIdOf(principal), () => close('Forbidden: the credential was revoked'));
  // An API token's roles are its scopes alone, which no role change touches.
  const stopRoles =
    principal.kind === 'session'
      ? pubSub.addListener(Topic.ROLES_REVOKED, principal.userId, () => close('Forbidden: a role of this account was revoked; reconnect'))
      : () => undefined;
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
    stopRoles();
    clearTimeout(timer);
  };
}

/** A result with errors as over HTTP: contract codes, the field at fault, nothing internal. */
function formattedWithErrors(result: ExecutionResult, log: RequestContext['log'] | undefined) {
  return { ...result, errors: (result.errors ?? []).map((error) => formatError(error.toJSON(), error, log ?? logger)) };
}

/** A request error with the code Apollo Server gives the same mistake over HTTP, so formatError answers both alike. */
function coded(error: GraphQLError, code: string, message = error.message): GraphQLError {
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    originalError: error.originalError ?? error,
    extensions: { ...error.extensions, code },
  });
}

/**
 * The steps Apollo Server takes before executing an HTTP request, in its order and with its codes and
 * messages: parse, validate, pick the operation, Plaza's limits, coerce the variables. graphql-ws's own
 * steps give uncoded errors, which read as server faults. Returns what graphql-ws then executes.
 */
function prepareOperation(
  schema: GraphQLSchema,
  execution: ReturnType<typeof sharedSubscriptionExecution>,
  payload: SubscribePayload,
  { hideSuggestions }: { hideSuggestions: boolean },
): ExecutionArgs | readonly GraphQLError[] {
  let document: DocumentNode;
  try {
    document = execution.parse(payload.query);
  } catch (err) {
    if (err instanceof GraphQLError) return [coded(err, 'GRAPHQL_PARSE_FAILED')];
    throw err;
  }
  const invalid = execution.validate(schema, document);
  // As Apollo's hideSchemaDetailsFromClientErrors: no "Did you mean …?" mapping the schema in production.
  if (invalid.length)
    return invalid.map((error) => coded(error, 'GRAPHQL_VALIDATION_FAILED', hideSuggestions ? error.message.replace(/ ?Did you mean(.+?)\?$/, '') : error.message));
  const operationName = payload.operationName ?? undefined;
  const operation = getOperationAST(document, operationName);
  if (!operation) {
    const message = operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.';
    return [new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } })];
  }
  const variables = payload.variables ?? undefined;
  assertOperationWithinLimits(schema, document, variables, operationName);
  const coercion = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 50 });
  if (coercion.errors) return coercion.errors.map((error) => coded(error, 'BAD_USER_INPUT'));
  return { schema, document, operationName, variableValues: variables };
}

/** graphql-ws on /graphql: authenticated in onConnect, the same limits as over HTTP, live only while the credential is. */
export function attachWebSocketServer(server: Server, schema: GraphQLSchema, services: Pick<Services, 'config' | 'pubSub' | 'subscriptionLimits'>, guards: RequestGuards) {
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
  // Updates of every subscription on this server leave through it, a burst's frames in one pass.
  const outbox = new FrameOutbox();
  return useServer<{ authorization?: string }, { context?: RequestContext; subscriptions?: SocketSubscriptions }>(
    {
      schema,
      ...execution,
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      // Subscriptions are personal, so a connection without a valid credential is closed with 4403.
      onConnect: async (ctx) => {
        const token = credentialOf({ authorization: ctx.connectionParams?.authorization, cookie: ctx.extra.request.headers.cookie });
        if (!token) return false;
        try {
          const context = await guards.context(token, ctx.extra.request.socket.remoteAddress ?? null, { connection: true });
          // Closed while its credential was read: its 'close' has been and gone, so nothing added now would ever be undone.
          if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) return false;
          ctx.extra.context = { ...context, log: logger.child({ requestId: requestIds.get(ctx.extra.request) ?? requestIdFrom(undefined) }) };
          if (context.principal) {
            const stopListening = endWithCredential(ctx.extra.socket, context.principal, services.pubSub);
            const subscriptions = (ctx.extra.subscriptions = services.subscriptionLimits.socket(context.principal.userId));
            ctx.extra.socket.once('close', () => {
              stopListening();
              services.subscriptionLimits.release(subscriptions);
            });
          }
          return true;
        } catch (err) {
          if (err instanceof GraphQLError && !isUnavailableError(err)) return false;
          // 1013 Try Again Later, which graphql-ws clients retry (a 4403 would tell them to stop); closed
          // first, so graphql-ws's own 4403 after `false` finds the socket closing and changes nothing.
          if (isUnavailableError(err)) {
            ctx.extra.socket.close(1013, 'The database is unavailable; try again shortly');
            return false;
          }
          // Anything else is Plaza's fault, and likely to pass. Thrown on, graphql-ws would print it to stderr and close
          // with 4500, which its clients take as final whatever their retry settings: the page's live updates would stay
          // paused until it is reloaded. Logged as Plaza logs, and the client asked to come back.
          logger.error({ requestId: requestIds.get(ctx.extra.request), err }, 'a live connection could not be set up; the client will try again');
          ctx.extra.socket.close(1013, 'Plaza could not set up live updates; try again shortly');
          return false;
        }
      },
      // Each operation on a socket counts like a request, and is checked and priced like one over HTTP.
      onSubscribe: (ctx, id, payload) => {
        const context = ctx.extra.context!;
        try {
          guards.admit(context.principal, context.ipAddress, { countAddress: true });
          const prepared = prepareOperation(schema, execution, payload, { hideSuggestions: services.config.production });
          if (Array.isArray(prepared)) return prepared;
          // At most 100 live subscriptions on a socket, and WEBSOCKETS_PER_ACCOUNT sockets with subscriptions per account (subscription-limits.ts).
          const { document, operationName } = prepared as ExecutionArgs;
          if (getOperationAST(document, operationName)?.operation === 'subscription')
            services.subscriptionLimits.admit(ctx.extra.subscriptions!, id, (held) => held in ctx.subscriptions);
          // The server writes this subscription's updates itself: serialised once per answer, not per subscriber.
          const framed: FramedExecutionArgs = {
            ...(prepared as ExecutionArgs),
            [FRAME_TARGET]: { socket: ctx.extra.socket, id, outbox, formatErrors: (result) => formattedWithErrors(result, context.log) },
          };
          return framed;
        } catch (err) {
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
      },
      context: (ctx) => guards.operationContext(ctx.extra.context!),
      // The same error shapes as over HTTP (contract codes, the field at fault, nothing internal).
      onError: (ctx, _id, _payload, errors) => {
        const log = ctx.extra.context?.log ?? logger;
        log.debug({ errors }, 'subscription error');
        return errors.map((error) => formatError(error.toJSON(), error, log));
      },
      // Results graphql-ws still sends itself (a subscription that failed to start); updates go through the outbox.
      onNext: (ctx, _id, _payload, _args, result) => (result.errors?.length ? formattedWithErrors(result, ctx.extra.context?.log) : undefined),
    },
    wsServer,
  );
}
