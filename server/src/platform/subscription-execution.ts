import { LRUCache } from 'lru-cache';
import {
  createSourceEventStream,
  execute,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type Source,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationRule,
} from 'graphql';
import { FRAME_TARGET, sendStream, type FramedExecutionArgs } from './subscription-frames.js';

type Answer = ExecutionResult | Promise<ExecutionResult>;

/** Distinct subscription texts remembered; past it the least recently used go (clients send a handful). */
const MAX_CACHED_DOCUMENTS = 500;
/**
 * Query text whose parsed documents are remembered, in characters; past it the least recently used go. A
 * parsed document is up to 170 times its text (nodes, locations, tokens): 500 documents near the token
 * limit held 306 MB for the life of the process, after their sockets had closed. This keeps at most
 * about 17 MB; the usual subscription texts are 50-400 characters.
 */
export const MAX_CACHED_QUERY_CHARS = 100_000;
/** A longer text is parsed for its own subscription only, so one cannot push the usual ones out. */
const MAX_CACHED_QUERY_LENGTH = MAX_CACHED_QUERY_CHARS / 20;

/**
 * graphql-ws hooks for many subscribers of one update. Without them each subscriber costs its own
 * parse, validation and execution of every update: at thousands of subscribers that per-subscriber
 * execution and its garbage were most of the server's time (benchmark 6). Here a query text is parsed
 * and validated once (with the same limits as over HTTP), and an update is executed once per distinct question: same query, operation
 * and variables, asked by subscribers equal in everything authorization reads (`audienceOf`). Each
 * subscriber still runs the subscription's own `subscribe` resolver, which checks its access. When the
 * args carry a frame target (websocket-server.ts), that answer is also serialised once and the frames
 * are written in batches (subscription-frames.ts) instead of graphql-ws stringifying each subscriber's.
 */
export function sharedSubscriptionExecution(
  schema: GraphQLSchema,
  audienceOf: (contextValue: unknown) => string,
  limits: { parseOptions: ParseOptions; validationRules: readonly ValidationRule[] },
) {
  const rules = [...specifiedRules, ...limits.validationRules];
  // Bounded in documents and in characters of their text; past either the least recently used go.
  const documents = new LRUCache<string, DocumentNode>({
    max: MAX_CACHED_DOCUMENTS,
    maxSize: MAX_CACHED_QUERY_CHARS,
    sizeCalculation: (_document, query) => Math.max(1, query.length),
  });
  const validations = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  // Keyed by the payload object the pub/sub hands to every listener of a message: gone with the message.
  const answersByPayload = new WeakMap<object, Map<string, Answer>>();

  return {
    /** Characters of query text whose parsed documents are kept (tests). */
    get cachedQueryChars(): number {
      return documents.calculatedSize;
    },

    parse: (source: string | Source): DocumentNode => {
      const query = typeof source === 'string' ? source : source.body;
      let document = documents.get(query);
      if (!document) {
        document = parse(query, limits.parseOptions);
        if (query.length > MAX_CACHED_QUERY_LENGTH) return document;
        documents.set(query, document);
      }
      return document;
    },

    validate: (_schema: GraphQLSchema, document: DocumentNode): readonly GraphQLError[] => {
      let errors = validations.get(document);
      if (!errors) validations.set(document, (errors = validate(schema, document, rules)));
      return errors;
    },

    subscribe: async (args: FramedExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> => {
      const stream = await createSourceEventStream(args);
      if (!(Symbol.asyncIterator in stream)) return stream;
      const question = [
        audienceOf(args.contextValue),
        args.document.loc?.source.body ?? JSON.stringify(args.document),
        args.operationName ?? '',
        JSON.stringify(args.variableValues ?? null),
      ].join('\n');
      const answerTo = (payload: unknown): Answer => {
        if (typeof payload !== 'object' || payload === null) return execute({ ...args, rootValue: payload });
        let answers = answersByPayload.get(payload);
        if (!answers) answersByPayload.set(payload, (answers = new Map()));
        let answer = answers.get(question);
        if (!answer) answers.set(question, (answer = execute({ ...args, rootValue: payload })));
        return answer;
      };
      // With a frame target the answer is also serialised once and written by the server (subscription-frames.ts).
      const target = args[FRAME_TARGET];
      return target ? sendStream(stream, answerTo, target) : mapStream(stream, answerTo);
    },
  };
}

/**
 * An async iterator over `source` mapped through `map`, whose `return` reaches the source at once
 * (an async generator would wait for the next update first, keeping a closed subscriber listening).
 */
function mapStream(
  source: AsyncIterable<unknown>,
  map: (payload: unknown) => Answer,
): AsyncIterableIterator<ExecutionResult> & { return(): Promise<IteratorResult<ExecutionResult>> } {
  const iterator = source[Symbol.asyncIterator]();
  const step = async (result: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> =>
    result.done ? { value: undefined, done: true } : { value: await map(result.value), done: false };
  return {
    next: () => iterator.next().then(step),
    return: async () => (iterator.return ? step(await iterator.return()) : { value: undefined, done: true }),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
