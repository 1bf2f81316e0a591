import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  isSpanContextValid,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type pg from 'pg';
import { logger } from './logger.js';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set and OTEL_SDK_DISABLED is not true. Off, nothing but @opentelemetry/api is loaded and every
 * hook below returns at its first line: the SDK is imported only by startTracing, so a process that
 * does not trace pays nothing per request, statement or delivery.
 */

export interface TracingSettings {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; traces go to `<it>/v1/traces`. */
  otlpEndpoint: string | undefined;
  /** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full URL for traces, used as it is (wins over the base URL). */
  otlpTracesEndpoint: string | undefined;
  /** OTEL_SERVICE_NAME: unset names the process by its role. */
  otelServiceName: string | undefined;
  /** OTEL_SDK_DISABLED: true turns tracing off whatever the endpoints say (OpenTelemetry's standard switch). */
  otelSdkDisabled: boolean;
}

/** What a process is, for its default service.name. */
export type ProcessRole = 'plaza-api' | 'plaza-worker';

let tracer: Tracer | undefined;
let flush: (() => Promise<void>) | undefined;
/** Spans inSpan started and has not ended: what a hard exit ends as interrupted (an attempt whose receiver hangs) before its last flush. */
const openSpans = new Set<Span>();

/** Whether this process exports traces: every hook asks this first. */
export const tracingOn = (): boolean => tracer !== undefined;

/** Where traces are sent, as the OpenTelemetry variables say; undefined when tracing is off. */
export function tracesUrl(settings: TracingSettings): string | undefined {
  if (settings.otelSdkDisabled) return undefined;
  if (settings.otlpTracesEndpoint) return settings.otlpTracesEndpoint;
  if (settings.otlpEndpoint) return `${settings.otlpEndpoint.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Starts exporting when the settings name an endpoint: a tracer provider with a batch span processor and
 * the OTLP/HTTP exporter (JSON), W3C trace context, and context that follows async calls. The standard
 * variables the SDK reads itself still apply (OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_RESOURCE_ATTRIBUTES). Once per process; flushTracing sends what is left at shutdown.
 */
export async function startTracing(settings: TracingSettings, role: ProcessRole): Promise<void> {
  const url = tracesUrl(settings);
  if (url === undefined || tracer !== undefined) return;
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { defaultResource, resourceFromAttributes },
    { W3CTraceContextPropagator },
    { AsyncLocalStorageContextManager },
    { ATTR_SERVICE_NAME },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const resource = defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.otelServiceName ?? role }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = trace.getTracer('plaza');
  flush = () => provider.shutdown();
  // The URL only: OTEL_EXPORTER_OTLP_HEADERS may carry a collector's token.
  logger.info({ url: redactedUrl(url), serviceName: settings.otelServiceName ?? role }, 'exporting traces over OTLP/HTTP');
}

/** Sends the spans still queued and stops exporting; on shutdown, after the process's work has stopped. */
export async function flushTracing(): Promise<void> {
  const done = flush;
  flush = undefined;
  await done?.().catch((err: Error) => logger.warn({ err: err.message }, 'could not send the last traces'));
}

/**
 * Ends the spans still open as interrupted: the work they stand for is being cut off by a stop (before the sockets it
 * waits on are closed under it, which would end them with the socket's error instead of saying why).
 */
export function endOpenSpansAsInterrupted(): void {
  for (const span of openSpans) {
    recordFailureKind(span, 'interrupted');
    span.end();
  }
  openSpans.clear();
}

/**
 * A hard exit's last flush (a stop past its deadline, a second signal): ends the spans still open as interrupted, so
 * the work that was cut off shows in its trace, and sends what is queued, waiting at most `withinMs` for the collector.
 */
export async function flushTracingBeforeExit(withinMs: number): Promise<void> {
  if (flush === undefined) return;
  endOpenSpansAsInterrupted();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([flushTracing(), new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]);
  clearTimeout(timer);
}

/** A URL without credentials or query (either can carry secrets): what a span or a log line may show. */
export function redactedUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * Marks `span` failed by a kind alone (an SQLSTATE, a GraphQL error code): for errors whose message can quote
 * values (invalid input, a constraint's key), which a trace must not carry.
 */
export function recordFailureKind(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  span.setAttribute('error.type', type);
}

/** Marks `span` failed with `err`'s message and kind; the message only, never a stack. For messages Plaza wrote (an attempt's outcome). */
export function recordFailure(span: Span, err: unknown, type?: string): void {
  const message = err instanceof Error ? err.message : String(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', type ?? (err instanceof Error ? err.name : 'error'));
  span.addEvent('exception', { 'exception.message': message, 'exception.type': type ?? (err instanceof Error ? err.name : 'error') });
}

/**
 * Runs `work` inside a new span (a child of the active one, or of `parent`), ending it when `work` settles and
 * marking it failed when `work` throws. Off: `work` runs as it is, with no span (and `attributes` is not called).
 */
export async function inSpan<T>(
  name: string,
  attributes: () => Attributes,
  work: (span: Span | undefined) => Promise<T>,
  options: { kind?: SpanKind; parent?: Context; links?: Link[] } = {},
): Promise<T> {
  if (tracer === undefined) return work(undefined);
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: attributes(), links: options.links }, parent);
  openSpans.add(span);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    // Its kind only (an SQLSTATE, a Plaza error code, else the class): the message may quote values.
    recordFailureKind(span, (err as { code?: unknown }).code?.toString() ?? (err instanceof Error ? err.name : 'error'));
    throw err;
  } finally {
    openSpans.delete(span);
    span.end();
  }
}

/** A span that already ended (e.g. a claim that found work, made only once it is known to have): started at `startTime`, ended now. */
export function recordSpan(name: string, startTime: number, attributes: Attributes, links: Link[]): SpanContext | undefined {
  if (tracer === undefined) return undefined;
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, startTime, attributes, links, root: true });
  span.end();
  return span.spanContext();
}

/** The active span's context as a W3C traceparent (55 characters), to store beside what it created; null when off or outside a span. */
export function activeTraceparent(): string | null {
  if (tracer === undefined) return null;
  const span = trace.getSpan(context.active());
  return span ? traceparentOf(span.spanContext()) : null;
}

/** The active span's context (a request's, for work it asked for that joins another trace); undefined when off or outside a span. */
export function activeSpanContext(): SpanContext | undefined {
  if (tracer === undefined) return undefined;
  const spanContext = trace.getSpan(context.active())?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** `00-<trace id>-<span id>-<flags>`, W3C Trace Context's traceparent. */
export function traceparentOf(spanContext: SpanContext): string | null {
  if (!isSpanContextValid(spanContext)) return null;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a stored traceparent names, as a remote parent; undefined for null or anything malformed. */
export function spanContextFrom(traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return undefined;
  const spanContext: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** A context whose parent is `spanContext` (or the root, without one). */
export const contextWithParent = (spanContext: SpanContext | undefined): Context => (spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT);

/** The context an incoming request's `traceparent`/`tracestate` headers carry (the root when it has none or tracing is off). */
export function extractRequestContext(headers: { get(name: string): string | undefined | null }): Context {
  if (tracer === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, {
    get: (carrier, key) => carrier.get(key) ?? undefined,
    keys: () => ['traceparent', 'tracestate'],
  });
}

/** Starts a span that the caller ends (a GraphQL request's, which spans several Apollo hooks); undefined when off. */
export function startSpan(name: string, parent: Context, kind: SpanKind, attributes: Attributes = {}): Span | undefined {
  return tracer?.startSpan(name, { kind, attributes }, parent);
}

export { SpanKind, SpanStatusCode };
export type { Span, SpanContext, Context, Link };

/** The first table a statement names (after FROM, INTO, UPDATE or JOIN). */
const TARGET = /\b(?:FROM|INTO|UPDATE|JOIN)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?/i;

/** A statement's summary for a span: its prepared name, or its first word and first table, never its values. */
function summarise(text: string, name: string | undefined): { summary: string; operation: string; table: string | undefined } {
  const operation = (/^\s*([A-Za-z]+)/.exec(text)?.[1] ?? 'SQL').toUpperCase();
  const table = TARGET.exec(text)?.[1];
  return { summary: name ?? (table ? `${operation} ${table}` : operation), operation, table };
}

const tracedClients = new WeakSet<object>();

/**
 * Every statement of `pool`'s connections (TypeORM's, the prepared hot paths') gets a span while a span is
 * active: named by its prepared name or first word and table, never its text's values. Statements outside
 * any span (the worker's polling, LISTEN) make none. Patched once per client class, only when tracing is on.
 */
export function traceQueries(pool: pg.Pool): void {
  if (tracer === undefined) return;
  const Client = (pool as unknown as { Client?: { prototype: pg.Client } }).Client;
  if (!Client || tracedClients.has(Client.prototype)) return;
  tracedClients.add(Client.prototype);
  const original = Client.prototype.query as (...args: unknown[]) => unknown;
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function tracedQuery(this: pg.Client, ...args: unknown[]) {
    const active = trace.getSpan(context.active());
    const [config] = args;
    if (!active || tracer === undefined || (config as { submit?: unknown } | null)?.submit) return original.apply(this, args);
    const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
    const { summary, operation, table } = summarise(text, typeof config === 'object' ? (config as { name?: string } | null)?.name : undefined);
    const span = tracer.startSpan(
      summary,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.summary': summary, ...(table ? { 'db.collection.name': table } : {}) },
      },
      context.active(),
    );
    const end = (err: unknown) => {
      // The SQLSTATE only: PostgreSQL's messages can quote the values.
      if (err) recordFailureKind(span, (err as { code?: string }).code ?? 'error');
      span.end();
    };
    const callbackAt = args.findIndex((arg) => typeof arg === 'function');
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as (err: unknown, result: unknown) => void;
      args[callbackAt] = (err: unknown, result: unknown) => {
        end(err);
        callback(err, result);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown> | undefined;
    // The caller handles the rejection; this only observes it.
    result?.then?.(
      () => end(undefined),
      (err: unknown) => end(err),
    );
    return result;
  };
}
