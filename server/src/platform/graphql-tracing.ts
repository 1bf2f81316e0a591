import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { context, trace } from '@opentelemetry/api';
import { extractRequestContext, recordFailureKind, SpanKind, startSpan, tracingOn, type Context, type Span } from './tracing.js';

/** Each request's span, by its context value: the executor runs the operation inside it (inOperationSpan). */
const spans = new WeakMap<object, { span: Span; parent: Context }>();

/**
 * A span per GraphQL request over HTTP, named as OpenTelemetry's GraphQL conventions say (`mutation
 * purchaseApp`, the operation's type and name, or its type alone), joining the trace of an incoming
 * `traceparent`, with the code of each error the request met (never a message or variables) and the HTTP status it was answered with.
 * Off, the plugin adds no hooks at all.
 */
export function graphqlTracingPlugin(): ApolloServerPlugin<BaseContext> {
  if (!tracingOn()) return {};
  return {
    async requestDidStart({ request, contextValue }) {
      const parent = extractRequestContext(request.http?.headers ?? new Map());
      const span = startSpan('graphql', parent, SpanKind.SERVER);
      if (!span) return {};
      spans.set(contextValue, { span, parent });
      return {
        async didResolveOperation({ operation, operationName }) {
          const type = operation?.operation ?? 'query';
          span.updateName(operationName ? `${type} ${operationName}` : type);
          span.setAttributes({ 'graphql.operation.type': type, ...(operationName ? { 'graphql.operation.name': operationName } : {}) });
        },
        async didEncounterErrors({ errors }) {
          // By code only (BAD_USER_INPUT, FORBIDDEN...): a message can quote the variables.
          for (const error of errors) recordFailureKind(span, typeof error.extensions?.code === 'string' ? error.extensions.code : 'INTERNAL_SERVER_ERROR');
        },
        async willSendResponse({ response }) {
          // Apollo sets a status only when it is not 200.
          span.setAttribute('http.response.status_code', response.http.status ?? 200);
          spans.delete(contextValue);
          span.end();
        },
      };
    },
  };
}

/**
 * Runs a request's operation inside its span, so the resolvers' statements and the events they record are
 * its children: Apollo's hooks cannot wrap execution, the executor can. Without a span, `run` as it is.
 */
export function inOperationSpan<T>(contextValue: object, run: () => Promise<T>): Promise<T> {
  const traced = spans.get(contextValue);
  if (!traced) return run();
  return context.with(trace.setSpan(traced.parent, traced.span), run);
}
