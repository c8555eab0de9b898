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
  private readonly started: Counter<Labels>;
  private readonly handledTotal: Counter<Labels | 'grpc_code'>;
  private readonly handling: Histogram<Labels>;
  private readonly msgReceived: Counter<Labels>;
  private readonly msgSent: Counter<Labels>;

  constructor(registry: MetricsRegistry) {
    const labels = ['grpc_type', 'grpc_service', 'grpc_method'] as const;
    this.started = registry.counter('grpc_server_started_total', 'Total number of RPCs started on the server.', labels);
    this.handledTotal = registry.counter('grpc_server_handled_total', 'Total number of RPCs completed on the server, regardless of success or failure.', [
      ...labels,
      'grpc_code',
    ]);
    this.handling = registry.histogram('grpc_server_handling_seconds', 'Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.', labels, [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]);
    this.msgReceived = registry.counter('grpc_server_msg_received_total', 'Total number of RPC stream messages received on the server.', labels);
    this.msgSent = registry.counter('grpc_server_msg_sent_total', 'Total number of gRPC stream messages sent by the server.', labels);
  }

  start(service: string, method: string, type: GrpcType): CallTracker {
    const labels = { grpc_type: type, grpc_service: service, grpc_method: method };
    const begin = process.hrtime.bigint();
    this.started.inc(labels);
    let done = false;
    return {
      received: () => this.msgReceived.inc(labels),
      sent: () => this.msgSent.inc(labels),
      handled: (code) => {
        if (done) return;
        done = true;
        this.handledTotal.inc({ ...labels, grpc_code: STATUS_NAMES[code] ?? String(code) });
        this.handling.observe(labels, Number(process.hrtime.bigint() - begin) / 1e9);
      },
    };
  }
}
