// What /metrics reads of the served models and their routers at scrape time.
import type { ClusterStatsSource, ModelStats } from '../observability/index.js';
import type { AnyInstance, LoadTracker } from '../router/index.js';
import type { ModelManager } from './model-manager.js';

export function clusterStats(models: ModelManager): ClusterStatsSource {
  return () => models.list().map(modelStats);
}

function modelStats(m: ReturnType<ModelManager['list']>[number]): ModelStats {
  const { router, card } = m;
  const routable = router.instances;
  const prefill = router.disaggregation.prefillPool;
  return {
    model: m.name,
    contextLength: card.contextLength,
    kvCacheBlockSize: card.kvCacheBlockSize,
    migrationLimit: card.migrationLimit,
    totalKvBlocks: totalKvBlocks(routable),
    instances: router.instanceIds.length,
    downInstances: router.instanceIds.length - routable.length,
    queuedRequests: router.policy.queuedRequests?.() ?? 0,
    decisions: router.policy.decisionStats,
    prefillDecisions: router.disaggregation.prefillDecisions(),
    endpoint: m.endpoint,
    // The model's router holds its decode (or aggregated) workers; a disaggregated model's prefill pool has its own.
    workers: [...routable.map((i) => workerStats(i, router.load, 'decode')), ...(prefill?.instances ?? []).map((i) => workerStats(i, prefill!.load, 'prefill'))],
  };
}

function workerStats(i: AnyInstance, load: LoadTracker, workerType: 'prefill' | 'decode'): ModelStats['workers'][number] {
  const capacity = i.capacity?.();
  return {
    workerId: i.id.toString(),
    dpRank: 0,
    workerType,
    activeDecodeBlocks: capacity?.kvUsedBlocks ?? null,
    kvTotalBlocks: capacity?.kvTotalBlocks ?? null,
    activePrefillTokens: load.prefillTokens(i.id),
    inflightRequests: load.inflight(i.id),
  };
}

function totalKvBlocks(instances: readonly { capacity?: () => { kvTotalBlocks: number } }[]): number | null {
  const published = instances.flatMap((i) => (i.capacity ? [i.capacity().kvTotalBlocks] : []));
  return published.length > 0 ? published.reduce((a, b) => a + b, 0) : null;
}
