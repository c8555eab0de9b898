// go-grpc-prometheus style server metrics, named as the gRPC guide lists them.

import type { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../../observability/index.js';
import { STATUS_NAMES } from './status.js';

type Labels = 'grpc_type' | 'grpc_service' | 'grpc_method';

export type GrpcType = 'unary' | 'bidi_stream' | 'server_stream';

export interface CallTracker {
  received(): void;
  sent(): void;
  handled(code: number): void;
}

export class GrpcMetrics {
  private readonly series: Series;

  constructor(registry: MetricsRegistry) {
    const labels = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
    this.series = {
      started: registry.counter('grpc_server_started_total', 'Total number of RPCs started on the server.', labels),
      handledTotal: registry.counter(
        'grpc_server_handled_total',
        'Total number of RPCs completed on the server, regardless of success or failure.',
        [...labels, 'grpc_code'],
      ),
      handling: registry.histogram(
        'grpc_server_handling_seconds',
        'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.',
        labels,
        [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      ),
      msgReceived: registry.counter('grpc_server_msg_received_total', 'Total number of RPC stream messages received on the server.', labels),
      msgSent: registry.counter('grpc_server_msg_sent_total', 'Total number of gRPC stream messages sent by the server.', labels),
    };
  }

  /** The metrics of one method; label objects are made here once, not per call. */
  method(service: string, method: string, type: GrpcType): MethodMetrics {
    return new MethodMetrics(this.series, { grpc_type: type, grpc_service: service, grpc_method: method });
  }
}

interface Series {
  started: Counter<Labels>;
  handledTotal: Counter<Labels | 'grpc_code'>;
  handling: Histogram<Labels>;
  msgReceived: Counter<Labels>;
  msgSent: Counter<Labels>;
}

export class MethodMetrics {
  private readonly byCode = new Map<number, Record<Labels | 'grpc_code', string>>();

  constructor(
    private readonly series: Series,
    private readonly labels: Record<Labels, string>,
  ) {}

  start(): CallTracker {
    this.series.started.inc(this.labels);
    return new Tracker(this, process.hrtime.bigint());
  }

  /** @internal */
  message(kind: 'received' | 'sent'): void {
    (kind === 'received' ? this.series.msgReceived : this.series.msgSent).inc(this.labels);
  }

  /** @internal */
  finish(code: number, begin: bigint): void {
    let withCode = this.byCode.get(code);
    if (!withCode) {
      withCode = { ...this.labels, grpc_code: STATUS_NAMES[code] ?? String(code) };
      this.byCode.set(code, withCode);
    }
    this.series.handledTotal.inc(withCode);
    this.series.handling.observe(this.labels, Number(process.hrtime.bigint() - begin) / 1e9);
  }
}

class Tracker implements CallTracker {
  private done = false;

  constructor(
    private readonly metrics: MethodMetrics,
    private readonly begin: bigint,
  ) {}

  received(): void {
    this.metrics.message('received');
  }

  sent(): void {
    this.metrics.message('sent');
  }

  handled(code: number): void {
    if (this.done) return;
    this.done = true;
    this.metrics.finish(code, this.begin);
  }
}
