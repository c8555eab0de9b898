import { ConfigError, type Config } from '../config/index.js';
import type { ModelDeploymentCard } from '../models/index.js';
import type { RouterMode } from '../protocols/index.js';
import { prefillPredictor } from './prefill-load-model.js';
import { buildRouterPolicy, LoadTracker, PushRouter, SessionAffinity, type BusyThresholds, type InstanceHealth, type MigrationLogger, type PolicyProvides, type RemoteMatches, type RouterOptions } from '../router/index.js';

const silent: MigrationLogger = { warn: () => undefined };

/** What the routers of one process share: where migration warnings go, and the record of down instances. */
export interface RouterDeps {
  logger?: MigrationLogger;
  health?: InstanceHealth;
  /** `--use-remote-indexer`: where the model's kv policy gets its overlaps instead of a local indexer. */
  remoteIndexer?: RemoteMatches;
}

/**
 * The PushRouter of a served model, from the router flags. `--load-aware` is upstream's preset:
 * kv routing on load alone (no overlap credit, so the indexer is never consulted). The frontend's
 * `--migration-limit` applies to every model; without it, each card's own limit does.
 */
export function buildRouter(config: Config, card: ModelDeploymentCard, deps: RouterDeps = {}): { router: PushRouter; provides: PolicyProvides } {
  const mode: RouterMode = config.loadAware ? 'kv' : config.routerMode;
  const load = new LoadTracker();
  const { policy, provides } = buildRouterPolicy(mode, {
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
      prefillPredictor: prefillPredictor(config),
      queueThreshold: config.routerQueueThreshold ?? null,
      queuePolicy: config.routerQueuePolicy,
      remoteIndexer: deps.remoteIndexer ?? null,
    },
  });
  const router = new PushRouter(card.displayName, policy, {
    mode,
    load,
    busyThresholds: busyThresholds(config),
    decodeFallback: config.decodeFallback,
    migration: { limit: config.migrationLimit ?? card.migrationLimit, maxSeqLen: config.migrationMaxSeqLen ?? null, logger: deps.logger ?? silent },
    affinity: sessionAffinity(config),
    ...lostWorkerOptions(config, deps.health),
  });
  return { router, provides };
}

/** `--router-session-affinity-ttl-secs` turns session affinity on, in `--router-session-affinity-mode`. */
function sessionAffinity(config: Config): SessionAffinity | null {
  const ttlSecs = config.routerSessionAffinityTtlSecs;
  return ttlSecs === undefined ? null : new SessionAffinity({ ttlSecs, mode: config.routerSessionAffinityMode });
}

/** Fails startup, before anything listens or forks, when router settings do not fit together. */
export function assertRouterSettings(config: Config): void {
  prefillPredictor(config);
  const kv = config.loadAware || config.routerMode === 'kv';
  if (config.serveIndexer && !kv) throw new ConfigError(`--serve-indexer requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.useRemoteIndexer && !kv) throw new ConfigError(`--use-remote-indexer requires --router-mode kv (got --router-mode ${config.routerMode})`);
  if (config.serveIndexer && config.useRemoteIndexer) throw new ConfigError('--serve-indexer and --use-remote-indexer are mutually exclusive');
}

export type LostWorkerOptions = Pick<RouterOptions, 'health' | 'stallTimeoutMs'>;

/** Every router of the process shares one health record and watches for stalls with DYN_HTTP_BACKEND_STREAM_TIMEOUT_SECS. */
export function lostWorkerOptions(config: Config, health?: InstanceHealth): LostWorkerOptions {
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
