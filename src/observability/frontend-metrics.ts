// Per-request frontend metrics with upstream's names, labels and buckets (reference/http.md §2.4),
// under the metrics prefix. Shared by the HTTP and gRPC frontends.

import type { Counter, Gauge, Histogram } from 'prom-client';
import type { CompletionUsage, ErrorKind } from '../protocols/index.js';
import type { MetricsRegistry } from './metrics.js';

export type RequestStatus = 'success' | 'error';

const DURATION_BUCKETS = [0, 2, 4, 8, 16, 32, 64, 130, 260, 510];
const INPUT_TOKEN_BUCKETS = [0, 100, 210, 430, 870, 1800, 3600, 7400, 15000, 31000, 63000, 130000];
const OUTPUT_TOKEN_BUCKETS = [0, 100, 210, 430, 880, 1800, 3700, 7600, 16000, 32000];
const TTFT_BUCKETS = [0, 0.0022, 0.0047, 0.01, 0.022, 0.047, 0.1, 0.22, 0.47, 1, 2.2, 4.7, 10, 22, 48, 100, 220, 480];
const ITL_BUCKETS = [0, 0.0019, 0.0035, 0.0067, 0.013, 0.024, 0.045, 0.084, 0.16, 0.3, 0.56, 1.1, 2];

export interface RequestTracker {
  /** A step released text or tokens: the first one sets TTFT, later ones inter-token latency. */
  output(tokens: number): void;
  /** Records the outcome once; later calls are ignored. */
  finish(status: RequestStatus, errorType?: ErrorKind | '', usage?: CompletionUsage): void;
}

function nowSeconds(): number {
  return performance.now() / 1000;
}

export class FrontendMetrics {
  private readonly requests: Counter<'model' | 'endpoint' | 'request_type' | 'status' | 'error_type'>;
  private readonly started: Counter<'model' | 'endpoint' | 'request_type'>;
  private readonly inflight: Gauge<'model'>;
  private readonly active: Gauge<'model'>;
  private readonly disconnected: Gauge<string>;
  private readonly duration: Histogram<'model'>;
  private readonly inputTokens: Histogram<'model'>;
  private readonly cachedTokens: Histogram<'model'>;
  private readonly outputTokens: Histogram<'model'>;
  private readonly ttft: Histogram<'model'>;
  private readonly itl: Histogram<'model'>;
  private readonly outputTokensTotal: Counter<'model'>;
  private readonly cancellations: Counter<'model' | 'endpoint' | 'request_type'>;
  private readonly rejections: Counter<'model' | 'endpoint'>;

  constructor(registry: MetricsRegistry) {
    const n = (s: string) => registry.name(s);
    this.requests = registry.counter(n('requests_total'), 'Total number of LLM requests processed', [
      'model',
      'endpoint',
      'request_type',
      'status',
      'error_type',
    ]);
    this.started = registry.counter(n('requests_started_total'), 'LLM requests started', ['model', 'endpoint', 'request_type']);
    this.inflight = registry.gauge(n('inflight_requests'), 'Number of inflight requests (deprecated: active_requests)', ['model']);
    this.active = registry.gauge(n('active_requests'), 'Number of requests being processed', ['model']);
    this.disconnected = registry.gauge(n('disconnected_clients'), 'Clients that went away before their response ended', []);
    this.duration = registry.histogram(n('request_duration_seconds'), 'Duration of LLM requests', ['model'], DURATION_BUCKETS);
    this.inputTokens = registry.histogram(n('input_sequence_tokens'), 'Input sequence length in tokens', ['model'], INPUT_TOKEN_BUCKETS);
    this.cachedTokens = registry.histogram(n('cached_tokens'), 'Prompt tokens served from the KV cache', ['model'], INPUT_TOKEN_BUCKETS);
    this.outputTokens = registry.histogram(n('output_sequence_tokens'), 'Output sequence length in tokens', ['model'], OUTPUT_TOKEN_BUCKETS);
    this.ttft = registry.histogram(n('time_to_first_token_seconds'), 'Time to first token', ['model'], TTFT_BUCKETS);
    this.itl = registry.histogram(n('inter_token_latency_seconds'), 'Time between output steps', ['model'], ITL_BUCKETS);
    this.outputTokensTotal = registry.counter(n('output_tokens_total'), 'Output tokens generated', ['model']);
    this.cancellations = registry.counter(n('model_cancellation_total'), 'Requests cancelled by the client', ['model', 'endpoint', 'request_type']);
    this.rejections = registry.counter(n('model_rejection_total'), 'Requests rejected because every worker was busy', ['model', 'endpoint']);
  }

  /** `endpoint` is e.g. `chat_completions`, `completions` or `tensor`; `requestType` is `stream` or `unary`. */
  start(model: string, endpoint: string, requestType: 'stream' | 'unary'): RequestTracker {
    const startedAt = nowSeconds();
    this.started.inc({ model, endpoint, request_type: requestType });
    this.inflight.inc({ model });
    this.active.inc({ model });
    let lastOutput = 0;
    let done = false;
    // Bound children: one label lookup per request, not per token.
    const itl = this.itl.labels({ model });
    return {
      output: (tokens) => {
        if (tokens <= 0 || done) return;
        const now = nowSeconds();
        if (lastOutput === 0) this.ttft.observe({ model }, now - startedAt);
        else itl.observe(now - lastOutput);
        lastOutput = now;
      },
      finish: (status, errorType = '', usage) => {
        if (done) return;
        done = true;
        this.inflight.dec({ model });
        this.active.dec({ model });
        this.requests.inc({ model, endpoint, request_type: requestType, status, error_type: status === 'success' ? '' : errorType });
        this.duration.observe({ model }, nowSeconds() - startedAt);
        if (errorType === 'cancelled') {
          this.cancellations.inc({ model, endpoint, request_type: requestType });
          this.disconnected.inc();
        }
        if (errorType === 'overload') this.rejections.inc({ model, endpoint });
        if (usage) {
          this.inputTokens.observe({ model }, usage.prompt_tokens);
          this.outputTokens.observe({ model }, usage.completion_tokens);
          this.outputTokensTotal.inc({ model }, usage.completion_tokens);
          const cached = usage.prompt_tokens_details?.cached_tokens;
          if (cached !== undefined && cached !== null) this.cachedTokens.observe({ model }, cached);
        }
      },
    };
  }
}
