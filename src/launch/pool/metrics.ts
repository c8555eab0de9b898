// /metrics of a frontend pool: each process counts its own requests in its own registry; a scrape
// of any process answers with all of them combined by prom-client's cluster aggregation. Counters
// and histograms add up; prom-client's process metrics carry their own rule (heap and RSS add up,
// event-loop lag averages). Gauges of what every process sees alike (the models, the workers'
// reported state, and with replica sync the workers' shared load) take the largest value instead
// of counting it once per process.
import { AggregatorRegistry, type Aggregator } from 'prom-client';
import type { Config } from '../../config/index.js';
import type { MetricsJson } from './messages.js';

/** Metric name → how its values of several processes combine; the rest keep their own rule (sum by default). */
export type MetricsAggregators = Readonly<Record<string, Aggregator>>;

/** Alike in every process: the same discovery and the same worker reports. */
const SHARED_VIEW = [
  'model_ready',
  'model_context_length',
  'model_kv_cache_block_size',
  'model_total_kv_blocks',
  'model_migration_limit',
  'model_instances',
  'model_down_instances',
  'worker_active_decode_blocks',
];

/** A router's view of its in-flight load: its own (adds up), or with replica sync everyone's (alike). */
const ROUTER_LOAD = ['worker_active_prefill_tokens', 'worker_inflight_requests'];

export function poolAggregators(config: Config): MetricsAggregators {
  // Pool processes run replica sync; only kv routers keep the load it shares.
  const loadShared = config.routerMode === 'kv';
  const out: Record<string, Aggregator> = {};
  for (const suffix of SHARED_VIEW) out[`${config.metricsPrefix}_${suffix}`] = 'max';
  for (const suffix of ROUTER_LOAD) out[`${config.metricsPrefix}_${suffix}`] = loadShared ? 'max' : 'sum';
  return out;
}

export function aggregateMetrics(perProcess: readonly MetricsJson[], aggregators: MetricsAggregators): Promise<string> {
  const ruled = perProcess.map((metrics) => metrics.map((m) => (aggregators[m.name] ? { ...m, aggregator: aggregators[m.name] } : m)));
  return AggregatorRegistry.aggregate(ruled).metrics();
}
