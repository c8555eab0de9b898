// What /metrics reads of the served models and their routers at scrape time.
import type { ModelManager } from '../models/index.js';
import type { ClusterStatsSource, ModelStats } from '../observability/index.js';

export function clusterStats(models: ModelManager): ClusterStatsSource {
  return () => models.list().map(modelStats);
}

function modelStats(m: ReturnType<ModelManager['list']>[number]): ModelStats {
  const { router, card } = m;
  const routable = router.instances;
  // Instances carry no data-parallel rank or role of their own: a model is prefill-only or aggregated (decode).
  const workerType = card.modelType.includes('Prefill') ? 'prefill' : 'decode';
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
    endpoint: m.endpoint,
    workers: routable.map((i) => {
      const capacity = i.capacity?.();
      return {
        workerId: i.id.toString(),
        dpRank: 0,
        workerType,
        activeDecodeBlocks: capacity?.kvUsedBlocks ?? null,
        kvTotalBlocks: capacity?.kvTotalBlocks ?? null,
        activePrefillTokens: router.load.prefillTokens(i.id),
        inflightRequests: router.load.inflight(i.id),
      };
    }),
  };
}

function totalKvBlocks(instances: readonly { capacity?: () => { kvTotalBlocks: number } }[]): number | null {
  const published = instances.flatMap((i) => (i.capacity ? [i.capacity().kvTotalBlocks] : []));
  return published.length > 0 ? published.reduce((a, b) => a + b, 0) : null;
}
