// Per-request frontend metrics with upstream's names: requests_total, inflight_requests and
// request_duration_seconds under the metrics prefix.

import type { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsRegistry } from './metrics.js';

export type RequestStatus = 'success' | 'error';

export interface RequestTracker {
  /** Records the outcome once; later calls are ignored. */
  finish(status: RequestStatus): void;
}

export class FrontendMetrics {
  private readonly requests: Counter<'model' | 'endpoint' | 'request_type' | 'status'>;
  private readonly inflight: Gauge<'model'>;
  private readonly duration: Histogram<'model'>;

  constructor(registry: MetricsRegistry) {
    this.requests = registry.counter(registry.name('requests_total'), 'Total number of LLM requests processed', [
      'model',
      'endpoint',
      'request_type',
      'status',
    ]);
    this.inflight = registry.gauge(registry.name('inflight_requests'), 'Number of inflight requests', ['model']);
    this.duration = registry.histogram(registry.name('request_duration_seconds'), 'Duration of LLM requests', ['model']);
  }

  /** `endpoint` is e.g. `completions` or `tensor`; `requestType` is `stream` or `unary`. */
  start(model: string, endpoint: string, requestType: 'stream' | 'unary'): RequestTracker {
    const started = process.hrtime.bigint();
    this.inflight.inc({ model });
    let done = false;
    return {
      finish: (status) => {
        if (done) return;
        done = true;
        this.inflight.dec({ model });
        this.requests.inc({ model, endpoint, request_type: requestType, status });
        this.duration.observe({ model }, Number(process.hrtime.bigint() - started) / 1e9);
      },
    };
  }
}
