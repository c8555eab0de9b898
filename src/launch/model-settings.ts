// The frontend's flags → the settings of the models it serves (models/): how their tokenizers,
// preprocessors and routers are built, and what the model watcher does with discovered workers.
import { ConfigError, type Config } from '../config/index.js';
import type { ModelSettings, ModelWatcherSettings, RouterSettings } from '../models/index.js';
import type { BusyThresholds, SilenceBounds } from '../router/index.js';
import { requestLimits } from './frontend/index.js';
import { prefillPredictor } from './prefill-load-model.js';
import { trackingKey } from './router-tracking-key.js';
import { routingConfiguration } from './router-policy/index.js';
import { createTokenizer } from './tokenizer-backend.js';
import { nvextRead } from './surfaces.js';

/**
 * The routers' settings: the flags, with `--load-aware` (upstream's preset: kv routing on load
 * alone) and the router policy file's `router:` settings over them, its policy classes and
 * worker-selection instances, and conditional disaggregation. The frontend's `--migration-limit`
 * applies to every model; without it, each card's own limit does.
 */
export function routerSettings(given: Config): RouterSettings {
  const routing = routingConfiguration(given);
  const config = routing.config;
  const ttlSecs = config.routerSessionAffinityTtlSecs;
  return {
    mode: config.routerMode,
    kv: {
      blockSize: config.kvCacheBlockSize,
      overlapScoreCredit: config.routerKvOverlapScoreCredit,
      overlapScoreCreditDecay: config.routerKvOverlapScoreCreditDecay,
      prefillLoadScale: config.routerPrefillLoadScale,
      decodeActiveRequestWeight: config.routerDecodeActiveRequestWeight,
      hostCacheHitWeight: config.routerHostCacheHitWeight,
      diskCacheHitWeight: config.routerDiskCacheHitWeight,
      sharedCacheType: config.sharedCacheType,
      sharedCacheMultiplier: config.sharedCacheMultiplier,
      sessionPrefixIndex: config.enableSessionPrefixIndex,
      temperature: config.routerTemperature,
      useKvEvents: config.routerKvEvents,
      ttlSecs: config.routerTtlSecs,
      approximateCachePolicy: config.routerApproximateCachePolicy,
      predictedTtlSecs: config.routerPredictedTtlSecs ?? null,
      trackActiveBlocks: config.routerTrackActiveBlocks,
      trackOutputBlocks: config.routerTrackOutputBlocks,
      assumeKvReuse: config.routerAssumeKvReuse,
      trackPrefillTokens: config.routerTrackPrefillTokens,
      prefillPredictor: prefillPredictor(config),
      queueThreshold: config.routerQueueThreshold ?? null,
      queuePolicy: config.routerQueuePolicy,
    },
    busyThresholds: busyThresholds(config),
    decodeFallback: config.decodeFallback,
    migration: { limit: config.migrationLimit, maxSeqLen: config.migrationMaxSeqLen ?? null },
    // `--router-session-affinity-ttl-secs` turns session affinity on, in `--router-session-affinity-mode`.
    sessionAffinity: ttlSecs === undefined ? null : { ttlSecs, mode: config.routerSessionAffinityMode },
    stallTimeoutMs: config.httpBackendStreamTimeoutSecs * 1000,
    workerSelection: routing.selections,
    policyProfiles: routing.profiles,
    conditionalDisagg: routing.conditionalDisagg,
    silence: silenceBounds(config),
    trackingKey: trackingKey(config),
  };
}

/** `--worker-silence-*`: when a silent stream gets its worker pinged; null with the check off. */
function silenceBounds(config: Config): SilenceBounds | null {
  if (!config.workerSilenceCheck) return null;
  const ceilingMs = config.workerSilenceCeilingSecs * 1000;
  return {
    firstTokenMs: Math.min(config.workerSilenceFirstTokenSecs * 1000, ceilingMs),
    prefillTokensPerSec: config.workerSilencePrefillRate,
    paceFactor: config.workerSilencePaceFactor,
    floorMs: Math.min(config.workerSilenceFloorSecs * 1000, ceilingMs),
    ceilingMs,
    pingTimeoutMs: config.workerPingTimeoutSecs * 1000,
  };
}

/** How every model is served: its tokenizer backend, the preprocessor's checks, its routers. */
export function modelSettings(config: Config): ModelSettings {
  return {
    tokenizer: (tokenizerJsonPath, warn) => createTokenizer(tokenizerJsonPath, config, warn),
    preprocessing: {
      maxOutputTokens: config.maxOutputTokens,
      ignoreUnsupportedFields: config.ignoreOpenaiFeUnsupportedFields,
      nvextEnabled: nvextRead(config),
      rejectMediaInputs: config.rejectMediaInputs,
      excludeToolsWhenToolChoiceNone: config.excludeToolsWhenToolChoiceNone,
      forwardMessages: config.dynChatProcessor !== 'dynamo',
      limits: requestLimits(config),
    },
    router: routerSettings(config),
  };
}

/** What the model watcher does with what it discovers. */
export function modelWatcherSettings(given: Config): ModelWatcherSettings {
  const config = effectiveRouterConfig(given);
  return {
    model: modelSettings(config),
    servedName: config.modelName,
    localModelPath: config.modelPath,
    useRemoteIndexer: config.useRemoteIndexer,
    replicaSync: config.routerReplicaSync,
    preprocessWorkers: config.dynPreprocessWorkers,
    preprocessMinChars: config.preprocessMinChars,
  };
}

/** The configuration the routers see: the load-aware preset and the router policy file's `router:` settings applied. */
export function effectiveRouterConfig(config: Config): Config {
  return routingConfiguration(config).config;
}

/** Fails startup, before anything listens or forks, when router settings (and the policy file) do not fit together. */
export function assertRouterSettings(given: Config): void {
  const config = effectiveRouterConfig(given);
  prefillPredictor(config);
  trackingKey(config);
  const kv = config.routerMode === 'kv';
  if (config.sharedCacheType !== 'none' && !kv) throw new ConfigError(`--shared-cache-type ${config.sharedCacheType} requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.serveIndexer && !kv) throw new ConfigError(`--serve-indexer requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.useRemoteIndexer && !kv) throw new ConfigError(`--use-remote-indexer requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.serveIndexer && config.useRemoteIndexer) throw new ConfigError('--serve-indexer and --use-remote-indexer are mutually exclusive');
  if (config.enableSessionPrefixIndex && !kv) throw new ConfigError(`--enable-session-prefix-index requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.enableSessionPrefixIndex && config.useRemoteIndexer) {
    throw new ConfigError('--enable-session-prefix-index needs the router\'s own indexer (its cached prefixes and KV events): it cannot be combined with --use-remote-indexer');
  }
  if (config.routerPredictedTtlSecs !== undefined && !config.routerKvEvents) {
    throw new ConfigError('--router-predicted-ttl-secs requires --router-kv-events (without KV events every decision is a prediction already: --router-ttl-secs)');
  }
  if (config.routerApproximateCachePolicy === 'lru' && config.routerKvEvents) {
    throw new ConfigError('--router-approximate-cache-policy lru requires --no-router-kv-events (it bounds the predictions of approximate mode)');
  }
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
