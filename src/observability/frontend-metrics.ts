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

/** One counter series: its labels and its total so far. */
interface CountedSeries<L extends string> {
  readonly labels: Record<L, string>;
  total: number;
}

/** A series' labels, of its model and its values. */
type SeriesLabels<L extends string> = (model: string, a: string, b: string, c: string, d: string) => Record<L, string>;

/**
 * One model's series of one counter by their label values (a request's endpoint, type, status
 * and error type), remembering the last one counted: most requests count the same series as the
 * one before, which then costs no key string and no lookup.
 */
class CounterSeries<L extends string> {
  readonly series = new Map<string, CountedSeries<L>>();
  private last: CountedSeries<L> | null = null;
  private lastValues: readonly [string, string, string, string] = ['', '', '', ''];

  constructor(
    private readonly model: string,
    private readonly labels: SeriesLabels<L>,
  ) {}

  /** Counts one in the series of these values (made the first time). */
  count(a: string, b: string, c: string, d: string): void {
    const v = this.lastValues;
    if (this.last !== null && v[0] === a && v[1] === b && v[2] === c && v[3] === d) {
      this.last.total++;
      return;
    }
    const key = `${a} ${b} ${c} ${d}`;
    let found = this.series.get(key);
    if (found) found.total++;
    else this.series.set(key, (found = { labels: this.labels(this.model, a, b, c, d), total: 1 }));
    this.last = found;
    this.lastValues = [a, b, c, d];
  }
}

type StartedLabel = 'model' | 'endpoint' | 'request_type';
type RequestLabel = StartedLabel | 'status' | 'error_type';

const startedLabels: SeriesLabels<StartedLabel> = (model, endpoint, requestType) => ({ model, endpoint, request_type: requestType });
const requestLabels: SeriesLabels<RequestLabel> = (model, endpoint, requestType, status, errorType) => ({
  model,
  endpoint,
  request_type: requestType,
  status,
  error_type: errorType,
});

/**
 * One model's per-request series, counted with plain numbers (a request touches about ten series;
 * through the metrics library's label objects that cost several microseconds per request) and read
 * when /metrics is scraped. A histogram or counter series exists once first counted, as the
 * library's do.
 */
class ModelSeries {
  inflight = 0;
  /** requests_started_total by endpoint and request type. */
  readonly started: CounterSeries<StartedLabel>;
  /** requests_total by endpoint, request type, status and error type. */
  readonly requests: CounterSeries<RequestLabel>;
  duration: Tally | null = null;
  ttft: Tally | null = null;
  /** Inter-token latency (observed per output step). */
  itl: Tally | null = null;
  inputTokens: Tally | null = null;
  cachedTokens: Tally | null = null;
  outputTokens: Tally | null = null;
  outputTokensTotal: number | null = null;

  constructor(readonly model: string) {
    this.started = new CounterSeries(model, startedLabels);
    this.requests = new CounterSeries(model, requestLabels);
  }
}

function observe(tally: Tally | null, bounds: readonly number[], value: number): Tally {
  const t = tally ?? new Tally(bounds);
  t.observe(value);
  return t;
}

/** The per-request series of one registry, by model; every frontend counting into the registry shares them. */
class RequestSeries {
  readonly models = new Map<string, ModelSeries>();
  /** Tokenizer latency (its one series, `operation="tokenize"`). */
  tokenize: Tally | null = null;

  /** The last model's series: a request's events (and most requests in a row) name the same model. */
  private last: ModelSeries | null = null;

  of(model: string): ModelSeries {
    if (this.last?.model === model) return this.last;
    let series = this.models.get(model);
    if (!series) {
      series = new ModelSeries(model);
      this.models.set(model, series);
    }
    return (this.last = series);
  }
}

const seriesByRegistry = new WeakMap<MetricsRegistry, RequestSeries>();

function seriesOf(registry: MetricsRegistry): RequestSeries {
  let series = seriesByRegistry.get(registry);
  if (!series) {
    series = new RequestSeries();
    seriesByRegistry.set(registry, series);
  }
  return series;
}

export class FrontendMetrics {
  private readonly series: RequestSeries;
  private readonly disconnected: Gauge<string>;
  private readonly embeddingLatency: Histogram<'model'>;
  private readonly cancellations: Counter<'model' | 'endpoint' | 'request_type'>;
  private readonly rejections: Counter<'model' | 'endpoint'>;
  private readonly migrations: Counter<'model' | 'migration_type'>;
  private readonly migrationDuration: Histogram<'model' | 'migration_type'>;

  /**
   * Registers every metric in /metrics order. The scraped ones read the registry's shared series
   * (a second frontend's registrations of them are no-ops); the library's are shared by name.
   */
  constructor(registry: MetricsRegistry) {
    const n = (s: string) => registry.name(s);
    const series = (this.series = seriesOf(registry));
    const models = series.models;
    registry.scrapedCounter<'model' | 'endpoint' | 'request_type' | 'status' | 'error_type'>(n('requests_total'), 'Total number of LLM requests processed', (emit) => {
      for (const m of models.values()) for (const c of m.requests.series.values()) emit(c.labels, c.total);
    });
    registry.scrapedCounter<'model' | 'endpoint' | 'request_type'>(n('requests_started_total'), 'LLM requests started', (emit) => {
      for (const m of models.values()) for (const c of m.started.series.values()) emit(c.labels, c.total);
    });
    const inflight = (set: (labels: Record<'model', string>, value: number) => void): void => {
      for (const m of models.values()) set({ model: m.model }, m.inflight);
    };
    registry.scrapedGauge(n('inflight_requests'), 'Number of inflight requests (deprecated: active_requests)', ['model'], inflight);
    registry.scrapedGauge(n('active_requests'), 'Number of requests being processed', ['model'], inflight);
    this.disconnected = registry.gauge(n('disconnected_clients'), 'Clients that went away before their response ended', []);
    const histogram = (name: string, help: string, pick: (m: ModelSeries) => Tally | null): void =>
      registry.scrapedHistogram<'model'>(n(name), help, (emit) => {
        for (const m of models.values()) {
          const tally = pick(m);
          if (tally) emit({ model: m.model }, tally);
        }
      });
    histogram('request_duration_seconds', 'Duration of LLM requests', (m) => m.duration);
    histogram('input_sequence_tokens', 'Input sequence length in tokens', (m) => m.inputTokens);
    histogram('cached_tokens', 'Prompt tokens served from the KV cache', (m) => m.cachedTokens);
    histogram('output_sequence_tokens', 'Output sequence length in tokens', (m) => m.outputTokens);
    histogram('time_to_first_token_seconds', 'Time to first token', (m) => m.ttft);
    histogram('inter_token_latency_seconds', 'Time between output steps', (m) => m.itl);
    this.embeddingLatency = registry.histogram(n('embedding_latency_seconds'), 'Duration of embedding requests', ['model'], EMBEDDING_BUCKETS);
    registry.scrapedHistogram<'operation'>(n('tokenizer_latency_ms'), 'Tokenizer latency in milliseconds', (emit) => {
      if (series.tokenize) emit({ operation: 'tokenize' }, series.tokenize);
    });
    registry.scrapedCounter<'model'>(n('output_tokens_total'), 'Output tokens generated', (emit) => {
      for (const m of models.values()) if (m.outputTokensTotal !== null) emit({ model: m.model }, m.outputTokensTotal);
    });
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
        const m = this.series.of(r.model);
        m.started.count(r.endpoint, r.requestType, '', '');
        m.inflight++;
      },
      firstToken: ({ request, ttft }) => {
        const m = this.series.of(request.model);
        m.ttft = observe(m.ttft, TTFT_BUCKETS, ttft);
      },
      token: ({ request, interval }) => {
        if (interval === null) return;
        const m = this.series.of(request.model);
        m.itl = observe(m.itl, ITL_BUCKETS, interval);
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
      tokenize: ({ milliseconds }) => {
        this.series.tokenize = observe(this.series.tokenize, TOKENIZER_MS_BUCKETS, milliseconds);
      },
      migration: ({ request, type, duration }) => {
        this.migrations.inc({ model: request.model, migration_type: type });
        this.migrationDuration.observe({ model: request.model, migration_type: type }, duration);
      },
    });
  }

  private finish(r: RequestInfo, status: RequestStatus, errorType: ErrorKind | '', duration: number): void {
    const m = this.series.of(r.model);
    m.inflight--;
    m.requests.count(r.endpoint, r.requestType, status, errorType);
    m.duration = observe(m.duration, DURATION_BUCKETS, duration);
  }

  private observeUsage(model: string, usage: CompletionUsage): void {
    const m = this.series.of(model);
    m.inputTokens = observe(m.inputTokens, INPUT_TOKEN_BUCKETS, usage.prompt_tokens);
    m.outputTokens = observe(m.outputTokens, OUTPUT_TOKEN_BUCKETS, usage.completion_tokens);
    m.outputTokensTotal = (m.outputTokensTotal ?? 0) + usage.completion_tokens;
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined && cached !== null) m.cachedTokens = observe(m.cachedTokens, INPUT_TOKEN_BUCKETS, cached);
  }
}

/** A new request scope whose requests are counted into `registry`, and how to stop counting them. */
export function meteredRequestScope(registry: MetricsRegistry, name: string): { scope: RequestScope; close: () => void } {
  const scope: RequestScope = { name };
  return { scope, close: new FrontendMetrics(registry).observe(scope) };
}
