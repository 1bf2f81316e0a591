import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { inOperationSpan } from '../platform/graphql-tracing.js';

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];
type GatewayExecutor = NonNullable<Awaited<ReturnType<GatewayInterface['load']>>['executor']>;

/** How an operation runs: compiled, or by graphql-js (seen once so far, or not compilable). */
type Compiled = CompiledQuery | 'graphql-js';

/**
 * Executes operations with graphql-jit, which compiles each document once into a plain function
 * instead of walking the AST for every field of every request (benchmark 5). Apollo Server 5 has no
 * executor option for a plain schema; its gateway interface is the one place an executor plugs in,
 * after Apollo has parsed, validated and run every plugin hook up to execution.
 *
 * What clients see stays graphql-js's: graphql-jit raises graphql-js GraphQLErrors with the same path,
 * locations and original error, so Apollo and formatError read them as before; variables that do not
 * coerce are refused by graphql-js itself (test/graphql-execution.test.ts).
 */
/**
 * graphql-jit leaves `extensions` undefined on an error whose original had none (a database error, say),
 * where graphql-js gives `{}`; Apollo reads `extensions.code` before formatError runs and, throwing there,
 * answers "Internal server error" instead of what formatError says (SERVICE_UNAVAILABLE, or the masked
 * unexpected error). Made again as graphql-js makes it.
 */
function withExtensions(error: GraphQLError): GraphQLError {
  if (error.extensions) return error;
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path, originalError: error.originalError });
}

export function jitGateway(schema: GraphQLSchema): GatewayInterface {
  // By document object: Apollo's document store hands back the same parsed, validated object for the
  // same query text, so entries live as long as the store keeps the document.
  const compiledByDocument = new WeakMap<DocumentNode, Map<string, Compiled>>();
  const seenOnce = new WeakSet<DocumentNode>();

  const compiled = (document: DocumentNode, operationName: string | undefined): Compiled => {
    // Compiling costs more than running a document once: a one-off (or a stream of distinct documents
    // sent to tire the server) is run by graphql-js; a document asked for again is compiled.
    if (!seenOnce.has(document)) {
      seenOnce.add(document);
      return 'graphql-js';
    }
    let byName = compiledByDocument.get(document);
    if (!byName) compiledByDocument.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let entry = byName.get(key);
    if (entry === undefined) {
      const result = compileQuery(schema, document, operationName);
      // What graphql-jit cannot compile (it says why in `errors`) graphql-js runs as before.
      entry = isCompiledQuery(result) ? result : 'graphql-js';
      byName.set(key, entry);
    }
    return entry;
  };

  const runOperation = async ({ document, request, context }: Parameters<GatewayExecutor>[0]): Promise<ExecutionResult> => {
    const run = compiled(document, request.operationName);
    const viaGraphqlJs = () =>
      execute({ schema, document, contextValue: context, variableValues: request.variables, operationName: request.operationName }) as Promise<ExecutionResult>;
    if (run === 'graphql-js') return viaGraphqlJs();
    const result = await run.query(undefined, context, request.variables ?? {});
    // No data at all: the variables did not coerce, so nothing ran. graphql-jit's errors for that lack what
    // Apollo reads to answer 400 BAD_USER_INPUT (it would say 500); graphql-js refuses them in its words.
    if (result.data === undefined && result.errors?.length) return viaGraphqlJs();
    return result.errors?.some((error) => !error.extensions) ? { ...result, errors: result.errors.map(withExtensions) } : result;
  };
  // Inside the request's span when tracing, so its resolvers' statements are the span's children.
  const executor: GatewayExecutor = (requestContext) => inOperationSpan(requestContext.context, () => runOperation(requestContext));

  return {
    load: async () => ({ schema, executor }),
    onSchemaLoadOrUpdate: (callback) => {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    stop: async () => undefined,
  };
}
