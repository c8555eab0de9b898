// A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON trace exports on POST /v1/traces
// and keeps every span, flattened with its service name.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  startNs: bigint;
  endNs: bigint;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface ExportRequest {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: { key: string; value: AnyValue }[];
        status?: { code?: number; message?: string };
        startTimeUnixNano: string;
        endTimeUnixNano: string;
      }[];
    }[];
  }[];
}

function valueOf(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

export class OtlpCollector {
  readonly spans: CollectedSpan[] = [];
  /** Every POST that reached the collector, whatever its path. */
  posts = 0;
  /** The content types of the exports received. */
  readonly contentTypes: string[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpCollector> {
    const server = createServer();
    const collector = new OtlpCollector(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        collector.posts++;
        collector.contentTypes.push(String(req.headers['content-type']));
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        collector.add(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return collector;
  }

  get tracesUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  /** The spans of one trace. */
  trace(traceId: string): CollectedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private add(body: ExportRequest): void {
    for (const rs of body.resourceSpans) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          this.spans.push({
            service,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId ?? '',
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
            status: s.status ?? {},
            startNs: BigInt(s.startTimeUnixNano),
            endNs: BigInt(s.endTimeUnixNano),
          });
        }
      }
    }
  }
}
