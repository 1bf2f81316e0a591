import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import express from 'express';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { authRoutes } from '../modules/identity/dev-sign-in.routes.js';
import { oidcRoutes } from '../modules/identity/oidc.routes.js';
import { credentialOf, requestCredential } from '../modules/identity/session-cookie.js';
import type { RequestContext } from './context.js';
import { formatError, PlazaError } from './errors.js';
import { logger } from './logger.js';
import type { Services } from './services.js';
import { sharedSubscriptionExecution } from './subscription-execution.js';

export interface HttpServer {
  server: Server;
  close(): Promise<void>;
}

async function contextFor(services: Services, token: string | undefined, ipAddress: string | null): Promise<RequestContext> {
  try {
    const principal = token ? await services.identity.authenticate(token) : null;
    return { principal, ipAddress, services };
  } catch (err) {
    // A bad credential fails the whole request with 401, so clients see at once that they must sign in again.
    if (err instanceof PlazaError) throw new GraphQLError(err.message, { extensions: { ...err.extensions, http: { status: err.httpStatus } } });
    throw err;
  }
}

/** Everything authorization reads about a subscriber: those equal in it may share the result of an update. */
function audienceOf({ principal }: RequestContext): string {
  if (!principal) return 'anonymous';
  const scopes = principal.kind === 'apiToken' ? [...principal.scopes].sort().join(',') : '';
  return [principal.kind, principal.userId, [...principal.roles].sort().join(','), scopes].join('|');
}

/** Express with the auth routes, GraphQL over HTTP and WebSocket on /graphql, health checks and the SPA. */
export async function createHttpServer(services: Services, schema: GraphQLSchema): Promise<HttpServer> {
  const app = express();
  app.disable('x-powered-by');
  app.use(services.metrics.httpMiddleware);
  const server = createServer(app);

  const wsServer = new WebSocketServer({ server, path: '/graphql' });
  const wsCleanup = useServer<{ authorization?: string }, { context?: RequestContext }>(
    {
      schema,
      ...sharedSubscriptionExecution(schema, (context) => audienceOf(context as RequestContext)),
      // Subscriptions are personal, so a connection without a valid credential is closed with 4403.
      onConnect: async (ctx) => {
        const token = credentialOf({ authorization: ctx.connectionParams?.authorization, cookie: ctx.extra.request.headers.cookie });
        if (!token) return false;
        try {
          ctx.extra.context = await contextFor(services, token, ctx.extra.request.socket.remoteAddress ?? null);
          return true;
        } catch (err) {
          if (err instanceof GraphQLError) return false;
          throw err;
        }
      },
      context: (ctx) => ctx.extra.context!,
      onError: (_ctx, _id, _payload, errors) => {
        logger.debug({ errors }, 'subscription error');
      },
    },
    wsServer,
  );

  const apollo = new ApolloServer<RequestContext>({
    schema,
    formatError,
    csrfPrevention: true,
    // main.ts owns shutdown order; Apollo's own handler would stop it early and re-send the signal.
    stopOnTerminationSignals: false,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    plugins: [services.metrics.graphqlPlugin(), ApolloServerPluginDrainHttpServer({ httpServer: server }), { serverWillStart: async () => ({ drainServer: async () => void (await wsCleanup.dispose()) }) }],
  });
  await apollo.start();

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    try {
      await services.db.query('SELECT 1');
      res.json({ status: 'ready', database: 'ok' });
    } catch {
      res.status(503).json({ status: 'not ready', database: 'unreachable' });
    }
  });
  // Prometheus text format; counts and latencies only, never a secret or an id.
  app.get('/metrics', async (_req, res, next) => {
    try {
      res.type(services.metrics.registry.contentType).send(await services.metrics.registry.metrics());
    } catch (err) {
      next(err);
    }
  });
  // Apps verify session tokens against these keys (decisions.md: Sessions in the iframe).
  app.get('/.well-known/jwks.json', async (_req, res, next) => {
    try {
      res.set('cache-control', 'public, max-age=60').json(await services.sessionTokens.jwks());
    } catch (err) {
      next(err);
    }
  });
  app.use(authRoutes(services));
  app.use(oidcRoutes(services));
  app.use(
    '/graphql',
    express.json({ limit: '1mb' }),
    expressMiddleware(apollo, { context: async ({ req }) => contextFor(services, requestCredential(req), req.socket.remoteAddress ?? null) }),
  );

  const webDist = services.config.webDistDir;
  if (existsSync(path.join(webDist, 'index.html'))) {
    app.use(express.static(webDist, { index: false, maxAge: '1h' }));
    // Every other GET is a route of the single-page app.
    app.get(/.*/, (_req, res) => void res.sendFile(path.join(webDist, 'index.html')));
  } else {
    app.get('/', (_req, res) => void res.type('text/plain').send('Plaza API is running; the web app is not built (run pnpm build).'));
  }

  app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = (err as { status?: number }).status;
    if (status === 413) return void res.status(413).json({ errors: [{ message: 'Request body is larger than 1 MB', extensions: { code: 'BAD_USER_INPUT' } }] });
    if (status && status >= 400 && status < 500) return void res.status(status).json({ errors: [{ message: (err as Error).message, extensions: { code: 'BAD_USER_INPUT' } }] });
    logger.error({ err }, 'unhandled HTTP error');
    res.status(500).json({ errors: [{ message: 'Something went wrong on our side; it has been logged.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
  });

  return {
    server,
    close: async () => {
      await apollo.stop();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
