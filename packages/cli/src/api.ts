import type { Agent } from 'node:http';
import type { Client } from 'graphql-ws';
import { CliError } from './errors.js';
import type { Settings } from './config.js';
import { CLI_USER_AGENT } from './version.js';

interface GraphQLError {
  message: string;
  extensions?: { code?: string; field?: string; reason?: string; previousValidUntil?: string };
}

export const UNREACHABLE = (url: string) => `Cannot reach Plaza at ${url}: is it running?`;
export const REFUSED = 'Your token was refused (UNAUTHENTICATED): run plaza login';

/** One line for a GraphQL error, saying what to do where there is something to do. */
export function describeError(error: GraphQLError): string {
  const code = error.extensions?.code;
  if (code === 'UNAUTHENTICATED') return REFUSED;
  if (error.extensions?.reason === 'ROTATION_IN_PROGRESS') {
    // The server's words name its GraphQL arguments; a terminal user needs the commands.
    return `A rotation is already in progress until ${error.extensions.previousValidUntil ?? 'its overlap ends'}; finish it first (plaza secret finish --app <id>) or rotate with --overlap 0 if the secret leaked (every older secret stops at once)`;
  }
  if (code === 'BAD_USER_INPUT' && error.extensions?.field) return `${error.message} (${error.extensions.field})`;
  return code ? `${error.message} (${code})` : error.message;
}

/** What API tokens begin with (identity.service.ts's API_TOKEN_PREFIX); sign-in tokens begin with plz_s_. */
const API_TOKEN_PREFIX = 'plz_at_';

/**
 * Client secrets and API tokens are for people signed in: Plaza refuses API tokens there (FORBIDDEN, "API tokens
 * cannot do this"). Said before asking, in the command's words, with where to do it instead.
 */
export function requireSignInToken(settings: Settings, command: string, instead: string): void {
  if (!settings.token?.startsWith(API_TOKEN_PREFIX)) return;
  const source = settings.tokenSource === 'PLAZA_TOKEN' ? 'PLAZA_TOKEN' : 'the stored login';
  throw new CliError(`${command} needs a sign-in token, and ${source} is an API token, which Plaza refuses for this: ${instead}, or set PLAZA_TOKEN to a sign-in token`);
}

function signedIn(settings: Settings): string {
  if (!settings.token) throw new CliError(`You are not signed in to ${settings.url}: run plaza login (or set PLAZA_TOKEN)`);
  return settings.token;
}

/** Connections kept open between one command's requests (a page after another), never keeping the process alive. */
const agents = new Map<string, Agent>();

/**
 * A POST with node:http(s) rather than fetch: the first fetch of a process loads undici, which cost 0.1-0.15 s
 * of a command's start on this machine against 0.04-0.05 s for node:http.
 */
export async function postJson(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const { request, Agent: AgentOf } = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  let agent = agents.get(target.protocol);
  if (!agent) agents.set(target.protocol, (agent = new AgentOf({ keepAlive: true })));
  const bytes = Buffer.from(body, 'utf8');
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Plaza's GraphQL API over HTTP, with errors turned into one-line CliErrors. */
export class PlazaApi {
  constructor(readonly settings: Settings) {}

  async request<T>(query: string, variables: Record<string, unknown> = {}, token = signedIn(this.settings)): Promise<T> {
    let response: { status: number; text: string };
    try {
      response = await postJson(`${this.settings.url}/graphql`, JSON.stringify({ query, variables }), {
        authorization: `Bearer ${token}`,
        'user-agent': CLI_USER_AGENT,
      });
    } catch {
      throw new CliError(UNREACHABLE(this.settings.url));
    }
    let body: { data?: T | null; errors?: GraphQLError[] };
    try {
      body = JSON.parse(response.text) as typeof body;
    } catch {
      throw new CliError(`Plaza at ${this.settings.url} answered HTTP ${response.status} without GraphQL: is PLAZA_URL right?`);
    }
    if (body.errors?.length) throw new CliError(describeError(body.errors[0]!));
    if (!body.data) throw new CliError(`Plaza at ${this.settings.url} answered HTTP ${response.status} with no data`);
    return body.data;
  }

  /**
   * A graphql-ws connection that reconnects by itself (graphql-ws's backoff) while the command runs. ws and
   * graphql-ws are loaded here, not at start-up: only the live commands need them.
   */
  async websocket(handlers: { onConnected?: () => void; onClosed?: () => void; onFailed?: (error: CliError) => void } = {}): Promise<Client> {
    const token = signedIn(this.settings);
    const [{ createClient }, { default: WebSocket }] = await Promise.all([import('graphql-ws'), import('ws')]);
    /** ws, saying who is connecting in the handshake as the HTTP requests do (graphql-ws passes only the URL and protocol). */
    class WebSocketWithUserAgent extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'user-agent': CLI_USER_AGENT } });
      }
    }
    return createClient({
      url: `${this.settings.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocketWithUserAgent,
      connectionParams: { authorization: `Bearer ${token}` },
      lazy: false,
      retryAttempts: Number.POSITIVE_INFINITY,
      // A refused token is final; anything else (server restart, network drop) is worth retrying.
      shouldRetry: (event) => !isRefusal(event),
      // With lazy: false, graphql-ws hands a failure of the connection itself (a token revoked while it runs)
      // to console.error by default: the whole CloseEvent, some 140 lines. The command says it in one line.
      onNonLazyError: (error) => handlers.onFailed?.(liveConnectionError(error)),
      // A refusal is no lost connection to retry: onNonLazyError reports it.
      on: { connected: () => handlers.onConnected?.(), closed: (event) => void (isRefusal(event) || handlers.onClosed?.()) },
    });
  }
}

/** Plaza closes a live connection whose credential is refused, revoked or expired with 4401/4403, the reason saying which. */
function isRefusal(event: unknown): boolean {
  const code = (event as { code?: unknown } | null)?.code;
  return code === 4401 || code === 4403;
}

/** One line for a live connection's failure (a close event, an Error, or a list of GraphQL errors). */
export function liveConnectionError(error: unknown): CliError {
  if (isRefusal(error)) {
    const reason = String((error as { reason?: unknown }).reason ?? '').replace(/^Forbidden: /, '');
    return new CliError(`Plaza closed the live connection: ${reason || 'your token was refused'}; run plaza login (or set PLAZA_TOKEN) with a valid token`);
  }
  if (Array.isArray(error) && error.length > 0) return new CliError(describeError(error[0] as GraphQLError));
  if (error instanceof Error) return new CliError(`The live connection failed: ${error.message}`);
  const code = (error as { code?: unknown } | null)?.code;
  return new CliError(`The live connection failed${code === undefined ? '' : ` (close code ${String(code)})`}`);
}

export interface Me {
  id: string;
  email: string;
  roles: string[];
}

export const ME = `query { me { id email roles } }`;

export async function requireMe(api: PlazaApi): Promise<Me> {
  const { me } = await api.request<{ me: Me | null }>(ME);
  if (!me) throw new CliError(REFUSED);
  return me;
}

/** Checks --app before anything else, so a typo gets "unknown app" rather than an empty log. */
export async function requireOwnApp(api: PlazaApi, appId: string): Promise<{ id: string; name: string; webhookUrl: string | null }> {
  const [me, { app }] = await Promise.all([
    requireMe(api),
    api.request<{ app: { id: string; name: string; ownerId: string; webhookUrl: string | null } | null }>(`query($id: ID!) { app(id: $id) { id name ownerId webhookUrl } }`, {
      id: appId,
    }),
  ]);
  if (!app) throw new CliError(`Unknown app ${appId}: plaza apps lists yours (an API token needs the apps:read scope to see an app under review)`);
  if (app.ownerId !== me.id && !me.roles.includes('ADMIN')) throw new CliError(`App ${appId} (${app.name}) is not yours: plaza apps lists yours`);
  return app;
}
