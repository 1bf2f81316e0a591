import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, errors as undiciErrors } from 'undici';
import { LRUCache } from 'lru-cache';
import { blockedAddressReason, blockedHostReason } from './address-policy.js';
import { logger } from '../logger.js';

/** Raised (as a connection error) when a destination resolves to an address webhooks may not reach. */
/** The most of a POST's response body kept (the contract's webhook attempts record the first 1 KiB). */
export const RESPONSE_EXCERPT_BYTES = 1024;

export class BlockedDestinationError extends Error {
  readonly code = 'PLAZA_BLOCKED_DESTINATION';
}

export interface GuardedResponse {
  statusCode: number | null;
  /** Why the request failed, in words a developer can act on; null when a response came back. */
  error: string | null;
  responseBodyExcerpt: string | null;
  durationMs: number;
}

export interface GuardedRawResponse {
  statusCode: number | null;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  error: string | null;
  durationMs: number;
}

export interface GuardedHttpClientOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Keep-alive connections per destination origin, in each pool. @default 32 */
  connectionsPerOrigin?: number;
}

/** Pools kept for separate callers (apps); past it the least recently used pool is closed. */
const MAX_POOLS = 2_000;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The only way Plaza calls servers it does not run (webhooks, review pre-checks): keep-alive undici
 * pools per origin; every new connection's resolved address is checked, so DNS rebinding cannot
 * reach an internal address after a harmless first lookup; redirects are never followed; one
 * deadline covers connect, headers and body.
 */
export class GuardedHttpClient {
  private readonly agent: Agent;
  private readonly agentOptions: Agent.Options;
  /**
   * One pool per app for webhooks: with pools per origin only, apps hosted on one server shared one
   * pool, and a single hanging app held all of that host's connections, stalling the other apps
   * there until its attempts timed out. The per-app cap on attempts in flight bounds each pool.
   */
  /** Pools by caller, the least recently used closed past MAX_POOLS (its requests in flight finish). */
  private readonly poolsByCaller = new LRUCache<string, Agent>({
    max: MAX_POOLS,
    dispose: (pool, caller, reason) => {
      if (reason === 'evict') pool.close().catch((err) => logger.warn({ err, caller }, 'an evicted connection pool did not close cleanly'));
    },
  });

  constructor(private readonly options: GuardedHttpClientOptions) {
    const guardedLookup = (hostname: string, lookupOptions: object, callback: LookupCallback) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err, []);
        if (!options.allowPrivate) {
          for (const { address } of addresses) {
            const reason = blockedAddressReason(address);
            if (reason) return callback(new BlockedDestinationError(`refused: ${hostname} resolves to ${reason}`), []);
          }
        }
        const wantsAll = (lookupOptions as { all?: boolean }).all;
        if (wantsAll) return callback(null, addresses);
        const [first] = addresses;
        // The resolver reports an unknown name as an error; an empty answer is the same to the caller.
        if (!first) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), []);
        callback(null, first.address, first.family);
      });
    };
    this.agentOptions = {
      connections: options.connectionsPerOrigin ?? 32,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { lookup: guardedLookup as never, timeout: options.timeoutMs },
      maxRedirections: 0,
    } as Agent.Options;
    this.agent = new Agent(this.agentOptions);
  }

  /** The pool for `caller` (created on first use; each use makes it the most recently used). */
  private poolFor(caller: string | undefined): Agent {
    if (caller === undefined) return this.agent;
    let pool = this.poolsByCaller.get(caller);
    if (!pool) this.poolsByCaller.set(caller, (pool = new Agent(this.agentOptions)));
    return pool;
  }

  /** Refusals that need no network: wrong scheme, literal internal addresses, internal names. */
  private refuseBeforeConnecting(url: URL): string | undefined {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return `refused: ${url.protocol} URLs cannot receive webhooks`;
    if (this.options.allowPrivate) return undefined;
    if (url.protocol !== 'https:') return 'refused: webhook URLs must use HTTPS';
    // Literal addresses never reach the DNS hook, so they are judged here, with names that always mean this machine.
    const reason = blockedHostReason(url);
    return reason ? `refused: ${reason}` : undefined;
  }

  /**
   * A webhook attempt: POST the body; any 2xx succeeds; 3xx and everything else fail with a reason.
   * `caller` (the app) gets connections of its own, whoever else the host serves.
   */
  async post(target: string, headers: Record<string, string>, body: string, caller?: string): Promise<GuardedResponse> {
    const { statusCode, error, body: excerpt, durationMs } = await this.request(target, { method: 'POST', headers, body, maxBodyBytes: RESPONSE_EXCERPT_BYTES, caller });
    return { statusCode, error, responseBodyExcerpt: excerpt.length ? toTextExcerpt(excerpt) : null, durationMs };
  }

  /** A GET for checks of pages and images: the status, headers and the first `maxBodyBytes` of the body. */
  get(target: string, maxBodyBytes: number): Promise<GuardedRawResponse> {
    return this.request(target, { method: 'GET', headers: { 'user-agent': 'Plaza-Review/1.0', accept: '*/*' }, maxBodyBytes });
  }

  private async request(
    target: string,
    options: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; maxBodyBytes: number; caller?: string },
  ): Promise<GuardedRawResponse> {
    const started = performance.now();
    const failed = (error: string): GuardedRawResponse => ({ statusCode: null, headers: {}, body: Buffer.alloc(0), error, durationMs: Math.round(performance.now() - started) });
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return failed('refused: not a valid URL');
    }
    const refusal = this.refuseBeforeConnecting(url);
    if (refusal) return failed(refusal);

    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.options.timeoutMs);
    try {
      const response = await this.poolFor(options.caller).request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: options.method,
        headers: options.headers,
        body: options.body,
        signal: abort.signal,
      });
      // The answer is the status line: a receiver that then trickles its body still answered, so the
      // deadline cuts the body read short instead of turning a delivered 2xx into a retried timeout.
      const body = await readPrefix(response.body, options.maxBodyBytes, abort.signal);
      const statusCode = response.statusCode;
      const error = statusCode >= 200 && statusCode < 300 ? null : statusCode >= 300 && statusCode < 400 ? `HTTP ${statusCode}: redirects are not followed` : `HTTP ${statusCode}`;
      return { statusCode, headers: response.headers, body, error, durationMs: Math.round(performance.now() - started) };
    } catch (err) {
      return failed(describeFailure(err, abort.signal.aborted, this.options.timeoutMs));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Called last at shutdown, when every result that is still wanted has been written: a request still
   * open belongs to a delivery that was handed back, so it is cut off rather than waited for.
   */
  async close(): Promise<void> {
    const pools = [this.agent, ...this.poolsByCaller.values()];
    this.poolsByCaller.clear();
    await Promise.all(pools.map((pool) => pool.destroy()));
  }
}

/**
 * The first `limit` bytes of a body; the rest is dropped without reading it, so a huge response costs
 * nothing. When `deadline` fires first, what arrived by then is the body. Read by events rather than
 * `for await`: an async iterator costs a few promises per response, and the delivery engine reads
 * thousands of responses a second.
 */
function readPrefix(body: NodeJS.ReadableStream & { destroy(): void }, limit: number, deadline: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      deadline.removeEventListener('abort', finish);
      body.destroy();
      resolve(Buffer.concat(chunks, Math.min(size, limit)));
    };
    if (deadline.aborted) return finish();
    deadline.addEventListener('abort', finish, { once: true });
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) finish();
    });
    body.once('end', finish);
    body.once('error', (err) => {
      // The deadline aborts the request, which errors the body: that is the cut, not a failure.
      if (deadline.aborted) return finish();
      deadline.removeEventListener('abort', finish);
      body.destroy();
      reject(err);
    });
  });
}

/** Cut on a character boundary so the excerpt is valid text. */
const toTextExcerpt = (bytes: Buffer) => bytes.toString('utf8').replace(/\uFFFD$/, '');

function describeFailure(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete response within ${timeoutMs} ms`;
  const cause = (err as { cause?: unknown }).cause ?? err;
  if (cause instanceof BlockedDestinationError || err instanceof BlockedDestinationError) return (cause as Error).message;
  if (err instanceof undiciErrors.ConnectTimeoutError) return `timeout: could not connect within ${timeoutMs} ms`;
  const code = (cause as NodeJS.ErrnoException).code ?? (err as NodeJS.ErrnoException).code;
  const message = (cause as Error).message ?? String(err);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS: could not resolve the host (${code})`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset before a complete response';
  return code ? `${code}: ${message}` : message;
}
