// Model, worker and router gauges (reference/http.md §2.4, operate-faults.md §4), read from the
// frontend's state when /metrics is scraped: routing and discovery keep their own counts and
// pay nothing per request for these.

import type { BucketCounts, MetricsRegistry } from './metrics.js';

/** One worker instance of a model as the router sees it. */
export interface WorkerStats {
  readonly workerId: string;
  readonly dpRank: number;
  /** Aggregated deployments report `decode`, as upstream does. */
  readonly workerType: 'prefill' | 'decode';
  /** KV blocks in use as the worker last reported them; null when it reports none. */
  readonly activeDecodeBlocks: number | null;
  /** KV blocks the worker has, as it last reported them; null when it reports none. */
  readonly kvTotalBlocks: number | null;
  /** Prompt tokens routed to it and not yet prefilled (first output not seen). */
  readonly activePrefillTokens: number;
  /** Requests the router has in flight on it. */
  readonly inflightRequests: number;
}

/** One served model. */
export interface ModelStats {
  readonly model: string;
  readonly contextLength: number;
  readonly kvCacheBlockSize: number;
  readonly migrationLimit: number;
  /** KV blocks of its routable workers together, as they publish them; null when none does. */
  readonly totalKvBlocks: number | null;
  /** Discovered instances, down ones included. */
  readonly instances: number;
  /** Instances marked down (router/health/instance-health.ts) and not routed to. */
  readonly downInstances: number;
  /** Requests held in the router queue, waiting for capacity. */
  readonly queuedRequests: number;
  /** What the KV router predicted at its decisions; absent for policies that predict no cache hits. */
  readonly decisions?: { readonly overlapBlocks: BucketCounts; readonly kvHitRate: BucketCounts };
  /** Disaggregated serving: every prefill decision so far, by where the prefill ran and why. */
  readonly prefillDecisions?: readonly { readonly decision: string; readonly reason: string; readonly count: number }[];
  /** Where the model's workers serve it. */
  readonly endpoint: { readonly namespace: string; readonly component: string; readonly endpoint: string };
  /** The routable workers. */
  readonly workers: readonly WorkerStats[];
}

/** Reads the current state; called once per gauge per scrape. */
export type ClusterStatsSource = () => readonly ModelStats[];

type ModelGauge = (m: ModelStats) => number | null;
type WorkerGauge = (w: WorkerStats) => number | null;
/** How one worker's values under several models become one: per-router counts add up, worker-wide values do not. */
type Combine = (a: number, b: number) => number;
const sum: Combine = (a, b) => a + b;

const MODEL_GAUGES: Readonly<Record<string, [help: string, read: ModelGauge]>> = {
  model_ready: ['1 when the model has a routable worker instance', (m) => (m.instances - m.downInstances > 0 ? 1 : 0)],
  model_context_length: ['Largest prompt plus completion the model accepts', (m) => m.contextLength],
  model_kv_cache_block_size: ['Tokens per KV cache block', (m) => m.kvCacheBlockSize],
  model_total_kv_blocks: ['KV blocks of the routable workers together', (m) => m.totalKvBlocks],
  model_migration_limit: ['How many times a request may move to another worker', (m) => m.migrationLimit],
  model_instances: ['Discovered worker instances of the model, down ones included', (m) => m.instances],
  model_down_instances: ['Worker instances marked down and not routed to', (m) => m.downInstances],
  queued_requests: ['Requests waiting in the router queue for a worker', (m) => m.queuedRequests],
};

const WORKER_GAUGES: Readonly<Record<string, [help: string, read: WorkerGauge, combine: Combine]>> = {
  worker_active_decode_blocks: ['KV blocks in use on the worker, as it last reported', (w) => w.activeDecodeBlocks, Math.max],
  worker_active_prefill_tokens: ['Prompt tokens routed to the worker and not yet prefilled', (w) => w.activePrefillTokens, sum],
  worker_inflight_requests: ['Requests the router has in flight on the worker', (w) => w.inflightRequests, sum],
};

type DecisionLabels = 'dynamo_namespace' | 'dynamo_component' | 'dynamo_endpoint' | 'model';

/** Upstream's router histogram names (no frontend prefix); `model` added since one frontend routes many. */
const DECISION_HISTOGRAMS: Readonly<Record<string, [help: string, read: (d: NonNullable<ModelStats['decisions']>) => BucketCounts]>> = {
  dynamo_component_router_kv_hit_rate: ['Predicted share of the prompt cached on the chosen worker, per routing decision', (d) => d.kvHitRate],
  dynamo_component_router_overlap_blocks: ['Cached prefix blocks on the chosen worker, per routing decision', (d) => d.overlapBlocks],
};

/** Registers the scrape-time gauges of `source` under the registry's prefix. */
export function registerClusterMetrics(registry: MetricsRegistry, source: ClusterStatsSource): void {
  for (const [suffix, [help, read]] of Object.entries(MODEL_GAUGES)) {
    registry.scrapedGauge(registry.name(suffix), help, ['model'], (set) => {
      for (const m of source()) {
        const value = read(m);
        if (value !== null) set({ model: m.model }, value);
      }
    });
  }
  for (const [name, [help, read]] of Object.entries(DECISION_HISTOGRAMS)) {
    registry.scrapedHistogram<DecisionLabels>(name, help, (emit) => {
      for (const m of source()) {
        if (!m.decisions) continue;
        const e = m.endpoint;
        emit({ dynamo_namespace: e.namespace, dynamo_component: e.component, dynamo_endpoint: e.endpoint, model: m.model }, read(m.decisions));
      }
    });
  }
  registry.scrapedCounter<'model' | 'decision' | 'reason'>(
    registry.name('prefill_decisions_total'),
    'Prefill decisions of disaggregated models: remote (on a prefill worker), local (on the decode worker, conditional disaggregation) or skipped (no prefill worker, --decode-fallback), by reason',
    (emit) => {
      for (const m of source()) for (const d of m.prefillDecisions ?? []) emit({ model: m.model, decision: d.decision, reason: d.reason }, d.count);
    },
  );
  for (const [suffix, [help, read, combine]] of Object.entries(WORKER_GAUGES)) {
    registry.scrapedGauge(registry.name(suffix), help, ['worker_id', 'dp_rank', 'worker_type'], (set) => {
      // A worker serving several models is one series.
      const sums = new Map<string, { labels: Record<'worker_id' | 'dp_rank' | 'worker_type', string>; value: number }>();
      for (const m of source()) {
        for (const w of m.workers) {
          const value = read(w);
          if (value === null) continue;
          const key = `${w.workerId}/${w.dpRank}/${w.workerType}`;
          const entry = sums.get(key);
          if (entry) entry.value = combine(entry.value, value);
          else sums.set(key, { labels: { worker_id: w.workerId, dp_rank: String(w.dpRank), worker_type: w.workerType }, value });
        }
      }
      for (const { labels, value } of sums.values()) set(labels, value);
    });
  }
}
