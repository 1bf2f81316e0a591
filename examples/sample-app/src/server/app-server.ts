import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSessionVerifier, createWebhookHandler, SessionTokenError } from '@plaza/app-sdk/server';
import { loadAppPage } from './app-page.js';
import { AppSessions, bearerToken } from './app-sessions.js';
import type { SampleAppConfig } from './config.js';
import { readJsonBody, RequestBodyError, sendJson, sendText } from './http-helpers.js';
import { PremiumLedger } from './premium-ledger.js';
import { fileFor, sendFile, type StaticMount } from './static-files.js';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
/** The SDK's built ES modules (dist/), found the way Node finds the package, served to the page under /sdk/. */
const SDK_DIST_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.resolve('@plaza/app-sdk/browser'))));

const STATIC_MOUNTS: readonly StaticMount[] = [
  { urlPrefix: '/page/', directory: path.join(PACKAGE_DIR, 'dist/page') },
  { urlPrefix: '/sdk/', directory: SDK_DIST_DIR },
  { urlPrefix: '/assets/', directory: path.join(PACKAGE_DIR, 'public') },
];

export interface SampleApp {
  handle: RequestListener;
  ledger: PremiumLedger;
}

export function createSampleApp(config: SampleAppConfig): SampleApp {
  const page = loadAppPage(path.join(PACKAGE_DIR, 'public/index.html'), config.platformOrigin);
  const ledger = new PremiumLedger();
  const appSessions = new AppSessions();
  const sessionTokens = createSessionVerifier({ platformOrigin: config.platformOrigin, appId: config.appId });
  const receiveWebhook = createWebhookHandler({
    clientSecret: config.clientSecret,
    onEvent(event, meta) {
      ledger.apply(event, meta);
      console.log(`webhook ${event.event} for ${event.user_id} (purchase ${event.purchase_id}, delivery ${meta.deliveryId}, attempt ${meta.attempt})`);
    },
  });

  /** Plaza's session token -> the verified user, and a session of this app for the page's later calls. */
  async function startSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    const token = (body as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token === '') return sendJson(res, 400, { error: 'token is required' });
    try {
      const { userId } = await sessionTokens.verify(token);
      sendJson(res, 200, { userId, premium: ledger.isPremium(userId), appSession: appSessions.start(userId) });
    } catch (error) {
      if (!(error instanceof SessionTokenError)) throw error;
      sendJson(res, error.code === 'KEYS_UNAVAILABLE' ? 503 : 401, { error: error.code });
    }
  }

  function currentUser(req: IncomingMessage, res: ServerResponse): void {
    const userId = appSessions.userOf(bearerToken(req.headers.authorization));
    if (!userId) return sendJson(res, 401, { error: 'NO_SESSION' });
    sendJson(res, 200, { userId, premium: ledger.isPremium(userId) });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'https://sample-app.invalid');
    const method = req.method ?? 'GET';
    if (pathname === '/webhooks/plaza') return receiveWebhook(req, res);
    if (method === 'POST' && pathname === '/api/session') return startSession(req, res);
    if (method === 'GET' && pathname === '/api/me') return currentUser(req, res);
    // Debug view of what Plaza sent; in a real app this would sit behind the developer's own login.
    if (method === 'GET' && pathname === '/api/events') return sendJson(res, 200, ledger.events());
    if (method === 'GET' && pathname === '/') {
      res.writeHead(200, page.headers);
      res.end(page.html);
      return;
    }
    const file = method === 'GET' ? fileFor(STATIC_MOUNTS, pathname) : undefined;
    if (file) return sendFile(res, file);
    sendText(res, 404, 'Not found');
  }

  const handle: RequestListener = (req, res) => {
    route(req, res).catch((error: unknown) => {
      if (error instanceof RequestBodyError) return sendJson(res, error.status, { error: error.message });
      console.error(error);
      if (!res.headersSent) sendJson(res, 500, { error: 'Internal error' });
    });
  };
  return { handle, ledger };
}
