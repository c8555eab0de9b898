// Per-request frontend metrics with upstream's names, labels and buckets (reference/http.md §2.4),
// under the metrics prefix, counted from the request events of one scope (protocols/request-events.ts):
// the frontends publish requests through the pipeline and never call these metrics themselves.

import type { Counter, Gauge, Histogram } from 'prom-client';
import {
  subscribeRequestEvents,
  type CompletionUsage,
  type ErrorKind,
  type RequestInfo,
  type RequestScope,
  Tally,
} from '../protocols/index.js';
import type { MetricsRegistry } from './metrics.js';

export type RequestStatus = 'success' | 'error';

const DURATION_BUCKETS = [0, 2, 4, 8, 16, 32, 64, 130, 260, 510];
const INPUT_TOKEN_BUCKETS = [0, 100, 210, 430, 870, 1800, 3600, 7400, 15000, 31000, 63000, 130000];
const OUTPUT_TOKEN_BUCKETS = [0, 100, 210, 430, 880, 1800, 3700, 7600, 16000, 32000];
const TTFT_BUCKETS = [0, 0.0022, 0.0047, 0.01, 0.022, 0.047, 0.1, 0.22, 0.47, 1, 2.2, 4.7, 10, 22, 48, 100, 220, 480];
const ITL_BUCKETS = [0, 0.0019, 0.0035, 0.0067, 0.013, 0.024, 0.045, 0.084, 0.16, 0.3, 0.56, 1.1, 2];
// Upstream gives 0, 0.002 … 10; the steps between are ours (1-2-5 per decade).
const EMBEDDING_BUCKETS = [0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10];
const TOKENIZER_MS_BUCKETS = [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const MIGRATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

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
  private readonly embeddingLatency: Histogram<'model'>;
  private readonly tokenize: Histogram.Internal<'operation'>;
  private readonly outputTokensTotal: Counter<'model'>;
  private readonly cancellations: Counter<'model' | 'endpoint' | 'request_type'>;
  private readonly rejections: Counter<'model' | 'endpoint'>;
  private readonly migrations: Counter<'model' | 'migration_type'>;
  private readonly migrationDuration: Histogram<'model' | 'migration_type'>;
  /** Inter-token latency per model, counted with plain additions: it is observed per output step. */
  private readonly itlByModel: Map<string, Tally>;

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
    this.itlByModel = itlTallies(registry);
    this.embeddingLatency = registry.histogram(n('embedding_latency_seconds'), 'Duration of embedding requests', ['model'], EMBEDDING_BUCKETS);
    this.tokenize = registry
      .histogram(n('tokenizer_latency_ms'), 'Tokenizer latency in milliseconds', ['operation'], TOKENIZER_MS_BUCKETS)
      .labels({ operation: 'tokenize' });
    this.outputTokensTotal = registry.counter(n('output_tokens_total'), 'Output tokens generated', ['model']);
    this.cancellations = registry.counter(n('model_cancellation_total'), 'Requests cancelled by the client', ['model', 'endpoint', 'request_type']);
    this.rejections = registry.counter(n('model_rejection_total'), 'Requests rejected because every worker was busy', ['model', 'endpoint']);
    this.migrations = registry.counter(n('model_migration_total'), 'Requests re-sent to another worker after theirs was lost', ['model', 'migration_type']);
    this.migrationDuration = registry.histogram(
      n('model_migration_duration_seconds'),
      'From a lost worker until the re-sent request answered, ended or failed',
      ['model', 'migration_type'],
      MIGRATION_BUCKETS,
    );
  }

  /** Counts the requests of `scope` from the request events until the returned function is called. */
  observe(scope: RequestScope): () => void {
    return subscribeRequestEvents(scope, {
      start: ({ request: r }) => {
        this.started.inc({ model: r.model, endpoint: r.endpoint, request_type: r.requestType });
        this.inflight.inc({ model: r.model });
        this.active.inc({ model: r.model });
      },
      firstToken: ({ request, ttft }) => this.ttft.observe({ model: request.model }, ttft),
      token: ({ request, interval }) => {
        if (interval !== null) this.itlOf(request.model).observe(interval);
      },
      end: ({ request, usage, duration }) => {
        this.finish(request, 'success', '', duration);
        if (request.endpoint === 'embeddings') this.embeddingLatency.observe({ model: request.model }, duration);
        if (usage) this.observeUsage(request.model, usage);
      },
      error: ({ request, kind, duration }) => {
        this.finish(request, 'error', kind, duration);
        if (kind === 'overload') this.rejections.inc({ model: request.model, endpoint: request.endpoint });
      },
      cancel: ({ request, duration }) => {
        this.finish(request, 'error', 'cancelled', duration);
        this.cancellations.inc({ model: request.model, endpoint: request.endpoint, request_type: request.requestType });
        this.disconnected.inc();
      },
      tokenize: ({ milliseconds }) => this.tokenize.observe(milliseconds),
      migration: ({ request, type, duration }) => {
        this.migrations.inc({ model: request.model, migration_type: type });
        this.migrationDuration.observe({ model: request.model, migration_type: type }, duration);
      },
    });
  }

  private itlOf(model: string): Tally {
    let tally = this.itlByModel.get(model);
    if (!tally) {
      tally = new Tally(ITL_BUCKETS);
      this.itlByModel.set(model, tally);
    }
    return tally;
  }

  private finish(r: RequestInfo, status: RequestStatus, errorType: ErrorKind | '', duration: number): void {
    this.inflight.dec({ model: r.model });
    this.active.dec({ model: r.model });
    this.requests.inc({ model: r.model, endpoint: r.endpoint, request_type: r.requestType, status, error_type: errorType });
    this.duration.observe({ model: r.model }, duration);
  }

  private observeUsage(model: string, usage: CompletionUsage): void {
    this.inputTokens.observe({ model }, usage.prompt_tokens);
    this.outputTokens.observe({ model }, usage.completion_tokens);
    this.outputTokensTotal.inc({ model }, usage.completion_tokens);
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined && cached !== null) this.cachedTokens.observe({ model }, cached);
  }
}

const itlByRegistry = new WeakMap<MetricsRegistry, Map<string, Tally>>();

/** The registry's inter-token latency tallies, read at scrape time; every frontend on it shares them. */
function itlTallies(registry: MetricsRegistry): Map<string, Tally> {
  let tallies = itlByRegistry.get(registry);
  if (!tallies) {
    const byModel = new Map<string, Tally>();
    tallies = byModel;
    itlByRegistry.set(registry, byModel);
    registry.scrapedHistogram<'model'>(registry.name('inter_token_latency_seconds'), 'Time between output steps', (emit) => {
      for (const [model, tally] of byModel) emit({ model }, tally);
    });
  }
  return tallies;
}

/** A new request scope whose requests are counted into `registry`, and how to stop counting them. */
export function meteredRequestScope(registry: MetricsRegistry, name: string): { scope: RequestScope; close: () => void } {
  const scope: RequestScope = { name };
  return { scope, close: new FrontendMetrics(registry).observe(scope) };
}
