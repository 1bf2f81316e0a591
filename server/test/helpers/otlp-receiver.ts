import { createServer, type Server } from 'node:http';
import { afterAll } from 'vitest';

/** One span as an OTLP/HTTP JSON export carries it, with its process's service.name and its attributes flattened. */
export interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: OtlpValue[] } };
const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? value.arrayValue?.values?.map(valueOf)));
const attributesOf = (list: { key: string; value: OtlpValue }[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

const receivers: OtlpReceiver[] = [];
// Closed after the file that started them.
afterAll(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A real OTLP/HTTP receiver, as a collector listens on :4318: it takes JSON exports on /v1/traces and keeps every span. */
export class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly contentTypes = new Set<string>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    // eslint-disable-next-line prefer-const
    let receiver!: OtlpReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        receiver.contentTypes.add(String(req.headers['content-type']));
        receiver.take(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    receivers.push(receiver);
    return receiver;
  }

  private take(body: { resourceSpans?: any[] }): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            status: span.status ?? {},
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({ traceId: link.traceId, spanId: link.spanId })),
          });
        }
      }
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** OTLP's span kinds. */
export const SERVER = 2;
export const CLIENT = 3;
