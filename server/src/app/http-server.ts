import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { authRoutes, oidcRoutes, requestCredential } from '../modules/identity/index.js';
import type { RequestContext } from '../platform/auth/context.js';
import { ErrorCode, formatError, isUnavailableError, PlazaError } from '../platform/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../platform/database-unavailable.js';
import { assertOperationWithinLimits, GRAPHQL_LIMITS, limitRules } from '../platform/graphql-limits.js';
import { requestLog, requestLogger } from '../platform/request-log.js';
import { logger } from '../platform/logger.js';
import { metricsEndpoint } from '../platform/metrics.js';
import { graphqlTracingPlugin } from '../platform/graphql-tracing.js';
import type { Services } from './services.js';
import { asHttpError, RequestGuards } from './request-guards.js';
import { noStore, securityHeaderList, securityHeaders } from '../platform/security-headers.js';
import { isBuilt, notFound, webRoutes } from '../platform/web-surface.js';
import { httpErrorAnswer } from '../platform/http-errors.js';
import { attachWebSocketServer } from './websocket-server.js';
import { jitGateway } from './jit-executor.js';
import { storeResponseCache } from './store-response-cache.js';
import { isLeanGraphqlPost, leanGraphqlPost } from './graphql-http.js';
import { eventCatalogueRoutes } from '../modules/webhooks/index.js';
import { appIdsOwnedBy } from '../modules/apps/index.js';

/** What /graphql answers: queries and mutations over GET and POST, the WebSocket upgrade on GET. */
const GRAPHQL_METHODS = 'GET, HEAD, POST, OPTIONS';

export interface HttpServer {
  server: Server;
  close(): Promise<void>;
}

/** Express with the auth routes, GraphQL over HTTP and WebSocket on /graphql, health checks and the SPA. */
export async function createHttpServer(services: Services, schema: GraphQLSchema): Promise<HttpServer> {
  const app = express();
  app.disable('x-powered-by');
  // Behind a load balancer the client's address is in X-Forwarded-For; trusted only when configured.
  app.set('trust proxy', services.config.trustProxy);
  app.use(services.metrics.httpMiddleware);
  app.use(requestLog);
  app.use(securityHeaders(services.config));
  // Set below, once Apollo has started; until then the server does not listen.
  const lean: { graphqlPost?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  // Where every HTTP request starts: POST /graphql as GraphQL clients send it takes the lean path
  // (graphql-http.ts), everything else Express.
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (lean.graphqlPost !== undefined && isLeanGraphqlPost(req)) lean.graphqlPost(req, res);
    else void app(req, res);
  };
  const server = createServer(onRequest);

  const guards = new RequestGuards(services.identity, services.config, (ownerId) => appIdsOwnedBy(services.db.manager, ownerId));
  const wsCleanup = attachWebSocketServer(server, schema, services, guards);

  const apollo = new ApolloServer<RequestContext>({
    // Same schema, executed by compiled operations instead of graphql-js's field walk (jit-executor.ts).
    gateway: jitGateway(schema),
    // Logged by the plugin below, which knows the request (and so its request id); formatting only masks.
    formatError: (formatted, error) => formatError(formatted, error, null),
    csrfPrevention: true,
    // main.ts owns shutdown order; Apollo's own handler would stop it early and re-send the signal.
    stopOnTerminationSignals: false,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // "Did you mean …?" helps developers and maps the schema for attackers: off in production.
    hideSchemaDetailsFromClientErrors: services.config.production,
    allowBatchedHttpRequests: false,
    parseOptions: { maxTokens: GRAPHQL_LIMITS.maxTokens },
    validationRules: limitRules,
    plugins: [
      // No field has a cache hint, and the default plugin wraps every resolver of every request to look for one.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo's landing page loads its explorer from a CDN; Plaza bundles GraphiQL at /graphiql instead.
      ApolloServerPluginLandingPageDisabled(),
      services.metrics.graphqlPlugin(),
      // A span per request when OTEL_EXPORTER_OTLP_ENDPOINT is set (nothing otherwise).
      graphqlTracingPlugin(),
      // Unexpected errors logged with the request's own logger, so the line carries its request id.
      {
        requestDidStart: async ({ contextValue }) => ({
          didEncounterErrors: async ({ errors }) => {
            for (const error of errors) formatError(error.toJSON(), error, contextValue.log ?? logger);
          },
        }),
      },
      // The database could not serve (restart, failover, disk full): 503 with Retry-After, so clients and load
      // balancers wait and ask again; formatError gives each such error the code SERVICE_UNAVAILABLE.
      {
        requestDidStart: async () => ({
          didEncounterErrors: async ({ errors, response }) => {
            if (!errors.some(isUnavailableError)) return;
            response.http.status = 503;
            response.http.headers.set('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
          },
        }),
      },
      // Checks that need the variables (`first: $n`, strings with NUL), once they are known, before anything runs.
      {
        requestDidStart: async () => ({
          didResolveOperation: async ({ document, request, operation }) => {
            // Executed over HTTP, a subscription's resolvers would run without the event they resolve.
            if (operation?.operation === 'subscription')
              throw asHttpError(new PlazaError(ErrorCode.BAD_USER_INPUT, 'Subscriptions are served over WebSocket at /graphql (graphql-ws), not over HTTP'));
            try {
              assertOperationWithinLimits(schema, document, request.variables, request.operationName);
            } catch (err) {
              throw err instanceof PlazaError ? asHttpError(err) : err;
            }
          },
        }),
      },
      ApolloServerPluginDrainHttpServer({ httpServer: server }),
      { serverWillStart: async () => ({ drainServer: async () => void (await wsCleanup.dispose()) }) },
    ],
  });
  await apollo.start();
  const storeCache = storeResponseCache(services.apps.storeResponses, schema, services.metrics);
  lean.graphqlPost = leanGraphqlPost({
    apollo,
    guards,
    trustProxy: services.config.trustProxy,
    securityHeaders: securityHeaderList(services.config),
    observe: services.metrics.httpTimer('POST', '/graphql'),
    storeCache: storeCache.lookup,
    keptAnswer: storeCache.keptFor,
    sharedHit: storeCache.sharedHit,
  });

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const { httpStatus, body } = await services.readiness.answer();
    res.status(httpStatus).json(body);
  });
  // Prometheus text format; counts and latencies only, never a secret or an id.
  const scrapeMetrics = metricsEndpoint(services.metrics, services.config.metricsToken);
  app.get('/metrics', async (req, res, next) => {
    try {
      const { httpStatus, headers, body } = await scrapeMetrics(req.headers.authorization);
      res.status(httpStatus).set(headers).send(body);
    } catch (err) {
      next(err);
    }
  });
  // Apps verify the session tokens launchApp issues against these keys (by the token's kid), without asking Plaza.
  app.get('/.well-known/jwks.json', async (_req, res, next) => {
    try {
      res.set('cache-control', 'public, max-age=60').json(await services.sessionTokens.jwks());
    } catch (err) {
      next(err);
    }
  });
  // The webhook event catalogue (JSON Schema per event), linked from the README and the portal.
  app.use(eventCatalogueRoutes(services.config.platformOrigin));
  app.use(['/graphql', '/auth'], guards.limitAddress);
  // Sign-in answers carry a token, and GraphQL answers secrets (revealClientSecret, createApiToken).
  app.use(['/graphql', '/auth'], noStore);
  app.use(authRoutes(services));
  app.use(oidcRoutes(services));
  // Preflights and probes are answered, not refused as CSRF (this origin grants no cross-origin access).
  app.options('/graphql', (_req, res) => void res.set('allow', GRAPHQL_METHODS).status(204).end());
  app.head('/graphql', (_req, res) => void res.set('allow', GRAPHQL_METHODS).type('application/json').status(200).end());
  // Someone who opens the endpoint in a browser gets the explorer.
  app.get('/graphql', (req, res, next) => (req.url === '/graphql' && req.accepts(['json', 'html']) === 'html' ? res.redirect(302, '/graphiql') : next()));
  app.use(
    '/graphql',
    express.json({ limit: '1mb' }),
    // Signed-out store reads answered within the last second, from memory (store-response-cache.ts).
    storeCache.middleware,
    // The argument is typed here: the integration's own view of express's types can resolve to nothing under pnpm.
    expressMiddleware(apollo, {
      context: async ({ req, res }: { req: express.Request; res: express.Response }) => ({
        ...(await guards.context(requestCredential(req), req.ip ?? null)),
        log: requestLogger(res),
      }),
    }),
  );

  const webDist = services.config.webDistDir;
  if (isBuilt(webDist)) {
    // Every other GET that asks for a page is a route of the single-page app.
    app.use(webRoutes(webDist));
  } else {
    app.get('/', (_req, res) => void res.type('text/plain').send('Plaza API is running; the web app is not built (run pnpm build).'));
  }
  app.use(notFound);

  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const answer = httpErrorAnswer(err, requestLogger(res));
    for (const [name, value] of answer.headers) res.set(name, value);
    res.status(answer.status).json(answer.body);
  });

  return {
    server,
    close: async () => {
      await apollo.stop();
      guards.close();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
