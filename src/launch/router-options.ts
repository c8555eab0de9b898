import type { Config } from '../config/index.js';
import type { ModelDeploymentCard } from '../models/index.js';
import type { RouterMode } from '../protocols/index.js';
import { createRouterPolicy, LoadTracker, PushRouter, type BusyThresholds, type InstanceHealth, type RouterOptions } from '../router/index.js';

/**
 * The PushRouter of a served model, from the router flags. `--load-aware` is upstream's preset:
 * kv routing on load alone (no overlap credit, so the indexer is never consulted).
 */
export function buildRouter(config: Config, card: ModelDeploymentCard, health?: InstanceHealth): PushRouter {
  const mode: RouterMode = config.loadAware ? 'kv' : config.routerMode;
  const load = new LoadTracker();
  const policy = createRouterPolicy(mode, {
    load,
    kv: {
      blockSize: config.kvCacheBlockSize ?? card.kvCacheBlockSize,
      overlapScoreCredit: config.loadAware ? 0 : config.routerKvOverlapScoreCredit,
      overlapScoreCreditDecay: config.routerKvOverlapScoreCreditDecay,
      prefillLoadScale: config.routerPrefillLoadScale,
      decodeActiveRequestWeight: config.routerDecodeActiveRequestWeight,
      hostCacheHitWeight: config.routerHostCacheHitWeight,
      diskCacheHitWeight: config.routerDiskCacheHitWeight,
      temperature: config.routerTemperature,
      useKvEvents: config.routerKvEvents,
      ttlSecs: config.routerTtlSecs,
      trackActiveBlocks: config.routerTrackActiveBlocks,
      trackOutputBlocks: config.routerTrackOutputBlocks,
      assumeKvReuse: config.routerAssumeKvReuse,
      trackPrefillTokens: config.routerTrackPrefillTokens,
      queueThreshold: config.routerQueueThreshold ?? null,
      queuePolicy: config.routerQueuePolicy,
    },
  });
  return new PushRouter(card.displayName, policy, {
    load,
    busyThresholds: busyThresholds(config),
    ...lostWorkerOptions(config, health),
  });
}

/** Every router of the process shares one health record and watches for stalls with DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS. */
export function lostWorkerOptions(config: Config, health?: InstanceHealth): Pick<RouterOptions, 'health' | 'stallTimeoutMs'> {
  return { health, stallTimeoutMs: config.httpBackendStreamTimeoutSecs * 1000 };
}

/** `--admission-control none` clears the busy thresholds; otherwise the configured ones apply. */
function busyThresholds(config: Config): BusyThresholds {
  const off = config.admissionControl === 'none';
  return {
    activeDecodeBlocksThreshold: off ? null : (config.activeDecodeBlocksThreshold ?? null),
    activePrefillTokensThreshold: off ? null : (config.activePrefillTokensThreshold ?? null),
    activePrefillTokensThresholdFrac: off ? null : (config.activePrefillTokensThresholdFrac ?? null),
  };
}
