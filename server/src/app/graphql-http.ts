import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import { credentialOf } from '../modules/identity/index.js';
import type { RequestContext } from '../platform/auth/context.js';
import { httpErrorAnswer } from '../platform/http-errors.js';
import { logger } from '../platform/logger.js';
import { rateLimited } from '../platform/rate-limiter.js';
import { logAccess, requestIdFrom } from '../platform/request-log.js';
import type { RequestGuards } from './request-guards.js';
import { STORE_CACHE_HEADER, type StoreCacheLookup } from './store-response-cache.js';
import type { StoredResponse } from '../modules/apps/index.js';

/** The largest request body /graphql reads (express.json's '1mb'); a bigger one is refused with 413 by Express. */
export const GRAPHQL_BODY_LIMIT = 1024 * 1024;

/** Content types the lean path reads as JSON; any other (a charset other than UTF-8, form posts, a typo) is Express's to answer as before. */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);

/**
 * Whether the lean path answers this request: POST /graphql with a JSON body in UTF-8 of a stated length up to
 * 1 MB, not compressed. That is every GraphQL client's request; anything else (no length, an encoding, a
 * trailing slash, too large a body) goes to Express, which answers it with the same headers and errors as
 * before. Headers only: nothing of the body has been read when this decides.
 */
export function isLeanGraphqlPost(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const url = req.url ?? '';
  if (url !== '/graphql' && !url.startsWith('/graphql?')) return false;
  const { headers } = req;
  const type = headers['content-type'];
  if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  if (headers['transfer-encoding'] !== undefined) return false;
  const length = Number(headers['content-length']);
  return length > 0 && length <= GRAPHQL_BODY_LIMIT;
}

export interface LeanGraphqlDeps {
  apollo: ApolloServer<RequestContext>;
  guards: RequestGuards;
  /** TRUST_PROXY: the client's address is the first of X-Forwarded-For (Express's `trust proxy` = true). */
  trustProxy: boolean;
  /** The security headers every answer carries, as name, value, name, value… */
  securityHeaders: readonly string[];
  /** Times the request into the HTTP histogram (route /graphql). */
  observe(statusCode: number, seconds: number): void;
  /** The signed-out store's response cache (store-response-cache.ts); `sharedHit` counts an answer another request computed. */
  storeCache(method: string, headers: IncomingMessage['headers'], body: unknown, options?: { share?: boolean; text?: string }): StoreCacheLookup | undefined;
  /** The answer the store cache keeps for this body's text, before it is parsed (a hit needs no parse). */
  keptAnswer(method: string, headers: IncomingMessage['headers'], text: string): StoredResponse | undefined;
  sharedHit(): void;
}

/**
 * POST /graphql without Express: what the Express stack did for it (request id and access line, metrics,
 * security headers, the address's rate limit, no-store, the JSON body parser, the store's response cache,
 * Apollo's Express integration), each once, in the same order and with the same answers, and nothing else:
 * no router walk, no request/response prototypes, no content negotiation (benchmark 5's floor). Express
 * still answers every other request, and the tests of those behaviours run against both.
 */
export function leanGraphqlPost(deps: LeanGraphqlDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { apollo, guards, securityHeaders, observe } = deps;
  const clientAddress = (req: IncomingMessage): string => {
    if (deps.trustProxy) {
      const forwarded = req.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').find((entry) => entry.trim() !== '');
      if (first !== undefined) return first.trim();
    }
    return req.socket.remoteAddress ?? 'unknown';
  };

  return (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    // The request's logger, for its resolvers and errors: made when one logs, which most requests never do.
    let requestLogger: Logger | undefined;
    const log = () => (requestLogger ??= logger.child({ requestId }));
    res.once('close', () => {
      // Only answers that were sent are timed, as Express's 'finish' listener did; every request gets its line.
      if (res.writableFinished) observe(res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
      logAccess(requestId, 'POST', '/graphql', res.statusCode, started, res.writableFinished);
    });
    const headers = ['x-request-id', requestId, ...securityHeaders];

    const credential = credentialOf(req.headers);
    const address = clientAddress(req);
    const wait = guards.addressWait(address, credential);
    if (wait > 0) {
      const error = rateLimited('address', wait);
      headers.push('retry-after', String(wait));
      sendJson(res, error.httpStatus, headers, { errors: [{ message: error.message, extensions: { ...error.extensions } }] });
      return;
    }
    // GraphQL answers secrets (revealClientSecret, createApiToken): no cache may keep one.
    headers.push('cache-control', 'no-store');

    readBody(req).then(
      async (text) => {
        const kept = deps.keptAnswer('POST', req.headers, text);
        if (kept) {
          sendKept(res, headers, kept);
          return;
        }
        let body: unknown;
        try {
          body = parseJsonBody(text);
        } catch (err) {
          const answer = httpErrorAnswer(Object.assign(err as Error, { status: 400 }), log());
          sendJson(res, answer.status, headers, answer.body);
          return;
        }
        try {
          await answerGraphql(req, res, body, text, headers, address, credential, log);
        } catch (err) {
          const answer = httpErrorAnswer(err, log());
          for (const [name, value] of answer.headers) headers.push(name, value);
          if (!res.headersSent) sendJson(res, answer.status, headers, answer.body);
          else res.destroy();
        }
      },
      // The client went away before its body arrived: nothing to answer, the access line says aborted.
      () => res.destroy(),
    );
  };

  async function answerGraphql(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    text: string,
    headers: string[],
    address: string,
    credential: string | undefined,
    log: () => Logger,
  ): Promise<void> {
    let cached = deps.storeCache('POST', req.headers, body, { share: true, text });
    if (cached?.shared) {
      const answer = await cached.shared;
      if (answer) {
        deps.sharedHit();
        cached = { hit: answer };
      } else {
        // Not kept (an error, a listing changed meanwhile): answered by the GraphQL server for this request alone.
        cached = deps.storeCache('POST', req.headers, body, { text });
      }
    }
    if (cached?.hit) {
      sendKept(res, headers, cached.hit);
      return;
    }
    if (cached) headers.push(STORE_CACHE_HEADER, 'miss');
    const requestHeaders = new HeaderMap();
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined) requestHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = req.url ?? '';
    const query = url.indexOf('?');
    let answer: Awaited<ReturnType<typeof apollo.executeHTTPGraphQLRequest>>;
    try {
      answer = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers: requestHeaders, search: query < 0 ? '' : url.slice(query), body },
        context: async () => new LazyLogContext(await guards.context(credential, address), log),
      });
    } catch (err) {
      // Nothing to keep: the requests waiting for this answer are each answered by the GraphQL server.
      cached?.done?.();
      throw err;
    }
    const status = answer.status ?? 200;
    const answerHeaders: [string, string][] = [];
    for (const [name, value] of answer.headers) answerHeaders.push([name, value]);
    if (answer.body.kind === 'complete') {
      cached?.keep?.(status, answerHeaders, answer.body.string);
      for (const [name, value] of answerHeaders) headers.push(name, value);
      send(res, status, headers, answer.body.string);
      return;
    }
    // Incremental delivery: each part as Apollo makes it, as its Express integration wrote them; never kept.
    cached?.done?.();
    for (const [name, value] of answerHeaders) headers.push(name, value);
    res.writeHead(status, headers);
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  }
}

/**
 * A request's context whose logger is made when a resolver or an error first logs, which most requests never do.
 * The getter is on the prototype: Apollo copies the context for each operation onto the same prototype
 * (Object.assign), which would call a getter of the object itself and make the logger for every request.
 */
class LazyLogContext implements RequestContext {
  declare readonly principal: RequestContext['principal'];
  declare readonly ipAddress: RequestContext['ipAddress'];
  declare readonly ownedAppIds: RequestContext['ownedAppIds'];
  constructor(
    context: Omit<RequestContext, 'log'>,
    private readonly logOf: () => Logger,
  ) {
    // Every field the guards give, as they give them: one added to RequestContext arrives without a change here.
    Object.assign(this, context);
  }
  get log(): Logger {
    return this.logOf();
  }
}

/** An answer the store cache kept, with its headers, said to come from memory. */
function sendKept(res: ServerResponse, headers: string[], kept: StoredResponse): void {
  for (const [name, value] of kept.headers) pushHeader(headers, name, value);
  headers.push(STORE_CACHE_HEADER, 'hit');
  send(res, kept.status, headers, kept.body, encodedOnce(kept));
}

function pushHeader(headers: string[], name: string, value: string | number | readonly string[]): void {
  if (typeof value === 'object') for (const each of value) headers.push(name, each);
  else headers.push(name, String(value));
}

/** A kept answer's bytes and ETag, made once for all the requests it answers rather than once per hit. */
const encodings = new WeakMap<StoredResponse, Encoded>();
interface Encoded {
  bytes: Buffer;
  etag: string;
}
function encodedOnce(response: StoredResponse): Encoded {
  let encoded = encodings.get(response);
  if (!encoded) {
    const bytes = Buffer.from(response.body, 'utf8');
    encodings.set(response, (encoded = { bytes, etag: weakEtag(bytes) }));
  }
  return encoded;
}

/**
 * Writes a whole answer as Express's res.send did: a content type with its charset (text/html when none was
 * set), its length, and its weak ETag (a SHA-1 of the bytes, as the `etag` package makes it).
 */
function send(res: ServerResponse, status: number, headers: string[], text: string, encoded: Encoded = encodedAnswer(text)): void {
  const { bytes } = encoded;
  let typed = false;
  for (let i = 0; i < headers.length; i += 2) {
    if (headers[i]!.toLowerCase() !== 'content-type') continue;
    typed = true;
    if (!/;\s*charset=/i.test(headers[i + 1]!)) headers[i + 1] += '; charset=utf-8';
  }
  if (!typed) headers.push('content-type', 'text/html; charset=utf-8');
  headers.push('content-length', String(bytes.length), 'etag', encoded.etag);
  res.writeHead(status, headers);
  res.end(bytes);
}

/**
 * The last answer of at least KEPT_ANSWER_MIN_LENGTH written, with its bytes and ETag. Many clients asking for the
 * same page in a row are answered the same text (the store's first page, from the page cache, to every signed-in
 * visitor), and its bytes and ETag (a SHA-1 of them) are then made once: comparing the text costs less than hashing
 * it again. Any other such answer takes its place.
 */
let lastAnswer: { text: string; encoded: Encoded } | undefined;
/**
 * Shorter answers are hashed each time, which costs little at their size; and they are where a one-off secret is
 * answered (a revealed client secret, a new API token), which is then not held after its request.
 */
export const KEPT_ANSWER_MIN_LENGTH = 2048;
function encodedAnswer(text: string): Encoded {
  if (lastAnswer?.text === text) return lastAnswer.encoded;
  const bytes = Buffer.from(text, 'utf8');
  const encoded = { bytes, etag: weakEtag(bytes) };
  if (text.length >= KEPT_ANSWER_MIN_LENGTH) lastAnswer = { text, encoded };
  return encoded;
}

/** An error in the one shape, as Express's res.json sent it. */
function sendJson(res: ServerResponse, status: number, headers: string[], body: unknown): void {
  headers.push('content-type', 'application/json; charset=utf-8');
  send(res, status, headers, JSON.stringify(body));
}

const weakEtag = (bytes: Buffer) => `W/"${bytes.length.toString(16)}-${hash('sha1', bytes, 'base64').slice(0, 27)}"`;

/** The body as text, up to its stated length (Node's parser stops there); rejects when the client goes away first. */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    req.once('error', reject);
    req.once('close', () => req.complete || reject(new Error('request aborted')));
  });
}

/**
 * express.json's parser (body-parser, strict): a leading byte-order mark is dropped as its decoder does, and
 * the body must be an object or an array, refused with the message JSON.parse would give at the first
 * character otherwise; the error's message is what the client is told (400 BAD_USER_INPUT).
 */
function parseJsonBody(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // An empty body is read as {} (a common client mistake, which Apollo then answers as a missing query).
  if (body.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/.exec(body)?.[1];
  if (first !== '{' && first !== '[') throw strictViolation(body, first ?? '');
  return JSON.parse(body) as unknown;
}

/** body-parser's own: parses the text with the first character onwards replaced, and puts the characters back in the message. */
function strictViolation(body: string, first: string): SyntaxError {
  const index = first === '' ? -1 : body.indexOf(first);
  const partial = index === -1 ? '' : body.slice(0, index) + '#'.repeat(body.length - index);
  try {
    JSON.parse(partial);
    return new SyntaxError('strict violation');
  } catch (err) {
    return new SyntaxError((err as Error).message.replace(/#+/g, (placeholder) => body.slice(index, index + placeholder.length)));
  }
}
