import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { parse, type GraphQLSchema } from 'graphql';
import { credentialOf } from '../modules/identity/index.js';
import { publicStoreRead, type StoreReadVerdict, type StoreResponseCache, type StoredResponse } from '../modules/apps/index.js';
import { GRAPHQL_LIMITS } from '../platform/graphql-limits.js';

/** Says on each answer the cache may keep whether it came from memory (`hit`) or from the GraphQL server (`miss`). */
export const STORE_CACHE_HEADER = 'x-plaza-cache';

/** Documents whose verdict is remembered; past it the list starts again (the store sends three). */
const MAX_VERDICTS = 200;

type GraphQLBody = { query: string; operationName?: string | null; variables?: Record<string, unknown> | null; extensions?: Record<string, unknown> | null };
/** What a request body may hold to be kept; Apollo Client 4 sends `extensions.clientLibrary` with every operation. */
const BODY_FIELDS: ReadonlySet<string> = new Set(['query', 'operationName', 'variables', 'extensions']);

/**
 * The cache's part in one request: an answer kept; the answer another request is computing for the same key
 * (`shared`: the kept answer, or undefined when it was not kept); or what to call with the GraphQL server's answer
 * so it may be kept, and `done` once the request is over, kept or not (so the requests sharing it never wait in vain).
 */
export type StoreCacheLookup =
  | { hit: StoredResponse; shared?: never; keep?: never; done?: never }
  | { hit?: never; shared: Promise<StoredResponse | undefined>; keep?: never; done?: never }
  | { hit?: never; shared?: never; keep(status: number, headers: StoredResponse['headers'], answer: string): void; done(): void };

/**
 * In front of Apollo on /graphql: answers a signed-out store read (publicStoreRead) that was answered within
 * the last second with the same bytes, headers included, and keeps the answers to such reads, keyed on the
 * whole request body (document, operation name, variables, extensions) and the Accept header. Signed-in
 * requests (an Authorization header or a session cookie) never read or fill it: the GraphQL server answers
 * them as before. Errors are never kept. `lookup` is for the lean POST /graphql path (graphql-http.ts),
 * `middleware` for the requests Express serves.
 */
export function storeResponseCache(cache: StoreResponseCache, schema: GraphQLSchema, counted: { countStoreResponse(result: 'hit' | 'stored'): void }) {
  const verdicts = new Map<string, StoreReadVerdict>();
  const verdictOf = (body: GraphQLBody): StoreReadVerdict => {
    const documentKey = `${body.operationName ?? ''}\u0000${body.query}`;
    let verdict = verdicts.get(documentKey);
    if (verdict === undefined) {
      try {
        // Apollo parses it again after this: a document is parsed twice once, then judged from memory.
        verdict = publicStoreRead(schema, parse(body.query, { maxTokens: GRAPHQL_LIMITS.maxTokens }), body.operationName);
      } catch {
        verdict = { cacheable: false };
      }
      if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
      verdicts.set(documentKey, verdict);
    }
    return verdict;
  };

  /**
   * The answers being computed for keys no answer is kept for, by the request computing each: when an answer
   * expires, the requests that arrive before the next is kept wait for that one instead of each running the
   * GraphQL server (and the page's statement) themselves, 50 at a time for 50 clients.
   */
  const computing = new Map<string, Promise<StoredResponse | undefined>>();

  /**
   * undefined: the request may not use the cache, and the GraphQL server answers it as if there were none.
   * `share`: it may wait for the answer another request is computing (the lean path, which then calls `done`).
   */
  const lookup = (method: string, headers: IncomingHttpHeaders, body: unknown, { share = false, text }: { share?: boolean; text?: string } = {}): StoreCacheLookup | undefined => {
    const key = cache.enabled ? keyOf(method, headers, body, text) : undefined;
    if (key === undefined) return undefined;
    const kept = cache.get(key);
    if (kept) {
      counted.countStoreResponse('hit');
      return { hit: kept };
    }
    const request = body as GraphQLBody;
    const verdict = verdictOf(request);
    if (!verdict.cacheable || verdict.searchVariables.some((name) => !isEmptyText(request.variables?.[name]))) return undefined;
    const generation = cache.generation;
    const pending = share ? computing.get(key) : undefined;
    if (pending) return { shared: pending };
    let settle: ((answer: StoredResponse | undefined) => void) | undefined;
    if (share) computing.set(key, new Promise((resolve) => (settle = resolve)));
    const done = (answer: StoredResponse | undefined) => {
      if (!settle) return;
      settle(answer);
      settle = undefined;
      computing.delete(key);
    };
    return {
      keep: (status, answerHeaders, answer) => {
        const response: StoredResponse = { status, headers: answerHeaders, body: answer };
        const stored = status === 200 && answeredWithoutErrors(answer) && cache.put(key, response, generation);
        if (stored) counted.countStoreResponse('stored');
        // Only an answer that was kept is shared: any other (an error, one computed across a change) is each request's own.
        done(stored ? response : undefined);
      },
      done: () => done(undefined),
    };
  };

  /**
   * The answer kept for a request's body exactly as it arrived, looked up before the body is parsed. Answers are
   * kept only under the text of a body `lookup` has checked, so a hit needs neither the parse nor the check; any
   * other text (a new one, the same request spaced differently) finds nothing and goes through `lookup`.
   */
  const keptFor = (method: string, headers: IncomingHttpHeaders, text: string): StoredResponse | undefined => {
    if (!cache.enabled || !maySignedOutRead(method, headers)) return undefined;
    const kept = cache.get(keyFor(headers, text));
    if (kept) counted.countStoreResponse('hit');
    return kept;
  };

  /** An answer shared with a request that waited for it: counted as read from memory, which it was. */
  const sharedHit = () => counted.countStoreResponse('hit');

  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const found = lookup(req.method, req.headers, req.body);
    if (found === undefined) return next();
    if (found.hit) {
      for (const [name, value] of found.hit.headers) res.setHeader(name, value);
      res.setHeader(STORE_CACHE_HEADER, 'hit');
      res.status(found.hit.status).send(found.hit.body);
      return;
    }
    res.setHeader(STORE_CACHE_HEADER, 'miss');
    const before = { ...res.getHeaders() };
    // Apollo's Express integration answers with res.send(string) once its headers and status are set.
    const send = res.send;
    res.send = function keep(this: Response, answer?: unknown) {
      res.send = send;
      if (typeof answer === 'string') found.keep?.(res.statusCode, headersSetSince(before, res.getHeaders()), answer);
      return send.call(this, answer);
    };
    next();
  };

  return { lookup, keptFor, middleware, sharedHit };
}

/**
 * The request's identity for the cache, or undefined when it may not use the cache: only a signed-out
 * POST of a JSON body with nothing but the document, operation name, variables and extensions (Apollo
 * Server reads only a persisted-query hash there, which it checks against the document). The key is the
 * body's text as it arrived (`text`; the parsed body written again when there is none, as for Express's
 * requests), and the Accept header, which picks the answer's content type.
 */
function keyOf(method: string, headers: IncomingHttpHeaders, body: unknown, text: string | undefined): string | undefined {
  if (!maySignedOutRead(method, headers)) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const field of Object.keys(body)) if (!BODY_FIELDS.has(field)) return undefined;
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  if (typeof query !== 'string') return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (!isObjectOrAbsent(variables) || !isObjectOrAbsent(extensions)) return undefined;
  return keyFor(headers, text ?? JSON.stringify(body));
}

/** Signed-in requests (an Authorization header or a session cookie) never read or fill the cache. */
const maySignedOutRead = (method: string, headers: IncomingHttpHeaders) => method === 'POST' && headers.authorization === undefined && credentialOf(headers) === undefined;

const keyFor = (headers: IncomingHttpHeaders, text: string) => `${headers.accept ?? ''}\n${text}`;

const isObjectOrAbsent = (value: unknown) => value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value));
const isEmptyText = (value: unknown) => value === undefined || value === null || value === '';

/** Kept only when it has data and no error at all (a partial answer carries `errors`). */
function answeredWithoutErrors(answer: string): boolean {
  try {
    const parsed = JSON.parse(answer) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'data' in parsed && !('errors' in parsed);
  } catch {
    return false;
  }
}

/** What the GraphQL server set on the response (content type and the like); what came before is set again on a hit by the same middleware. */
function headersSetSince(before: Record<string, unknown>, after: Record<string, unknown>): StoredResponse['headers'] {
  const set: [string, string | number | readonly string[]][] = [];
  for (const [name, value] of Object.entries(after)) {
    if (value === undefined || name === STORE_CACHE_HEADER) continue;
    if (before[name] !== value) set.push([name, value as string | number | readonly string[]]);
  }
  return set;
}
