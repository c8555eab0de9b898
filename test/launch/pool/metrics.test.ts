import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../../src/config/index.js';
import { aggregateMetrics, poolAggregators } from '../../../src/launch/pool/metrics.js';
import { MetricsRegistry } from '../../../src/observability/index.js';
import { families } from '../../support/prometheus-text.js';

function config(argv: string[]): Config {
  const parsed = parseCommandLine(argv, {});
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).config;
}

/** One pool process's registry: its own request count, and the model as every process sees it. */
function processRegistry(requests: number, inflight: number): MetricsRegistry {
  const registry = new MetricsRegistry();
  registry.counter(registry.name('requests_total'), 'requests', ['model']).inc({ model: 'm' }, requests);
  registry.scrapedGauge(registry.name('model_instances'), 'instances', ['model'], (set) => set({ model: 'm' }, 2));
  registry.scrapedGauge(registry.name('worker_inflight_requests'), 'inflight', ['worker_id', 'dp_rank', 'worker_type'], (set) =>
    set({ worker_id: '1', dp_rank: '0', worker_type: 'decode' }, inflight),
  );
  registry.histogram(registry.name('request_duration_seconds'), 'duration', ['model'], [1]).observe({ model: 'm' }, 0.5);
  return registry;
}

async function pooled(argv: string[]): Promise<Map<string, { samples: { value: number }[] }>> {
  const perProcess = await Promise.all([processRegistry(3, 1), processRegistry(4, 2)].map((r) => r.registry.getMetricsAsJSON()));
  return families(await aggregateMetrics(perProcess, poolAggregators(config(argv))));
}

test('counters and histograms add up across processes; the shared view of the model counts once', async () => {
  const all = await pooled(['serve']);
  assert.equal(all.get('dynamo_frontend_requests_total')!.samples[0]!.value, 7);
  assert.equal(all.get('dynamo_frontend_model_instances')!.samples[0]!.value, 2);
  const count = all.get('dynamo_frontend_request_duration_seconds')!.samples.find((s) => (s as { name?: string }).name?.endsWith('_count'));
  assert.equal(count!.value, 2);
  assert.equal(all.get('dynamo_frontend_worker_inflight_requests')!.samples[0]!.value, 3, 'without replica sync each router holds its own load');
});

test('kv routers share their load by replica sync: the worker load gauges take the largest view', async () => {
  const all = await pooled(['serve', '--router-mode', 'kv']);
  assert.equal(all.get('dynamo_frontend_worker_inflight_requests')!.samples[0]!.value, 2);
});

test('a registry renders through the pool when told to', async () => {
  const registry = processRegistry(1, 0);
  registry.renderThrough(async () => 'pooled\n');
  assert.equal(await registry.render(), 'pooled\n');
});
