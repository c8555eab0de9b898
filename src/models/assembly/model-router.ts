// The router of a served model, from the frontend's router settings (launch translates its flags
// and the router policy file). A router's workers override some KV settings by their role, as
// upstream's per-role router config overrides do: the decode hop and the prefill pool route
// differently from aggregated workers, and workers that publish no KV events get approximate
// routing. The overrides are data here. Each role also has its worker-selection instance, and each
// model its policy-class profile.
import type { ModelDeploymentCard, RouterMode, WorkerType } from '../../protocols/index.js';
import {
  buildRouterPolicy,
  LoadTracker,
  PushRouter,
  SessionAffinity,
  type BusyThresholds,
  type ConditionalDisaggSettings,
  type DecisionLogger,
  type InstanceHealth,
  type KvRouterOptions,
  type MigrationLogger,
  type PolicyProfile,
  type PolicyProvides,
  type RemoteMatches,
  type RouterOptions,
  type SessionAffinityOptions,
  type WorkerSelectionChoice,
  type SilenceBounds,
  type TrackingKey,
  type WorkerLiveness,
} from '../../router/index.js';

/** The kv policy's settings; the block size, when unset, is each card's; selection and profile come per role and model. */
export type KvRouterSettings = Partial<Omit<KvRouterOptions, 'blockSize' | 'remoteIndexer' | 'workerSelection' | 'policyProfile' | 'trackingHash'>> & {
  readonly blockSize?: number;
};

/** Policy-class profiles: a model's own, else the root one, else the kv settings' single class. */
export interface PolicyProfiles {
  readonly root: PolicyProfile | null;
  readonly models: Readonly<Record<string, PolicyProfile>>;
}

/** How every router of the frontend is built. */
export interface RouterSettings {
  readonly mode: RouterMode;
  readonly kv: KvRouterSettings;
  readonly busyThresholds: BusyThresholds;
  /** Decode workers without a prefill pool serve aggregated instead of a 503. */
  readonly decodeFallback: boolean;
  /** `limit` unset: each card's own. */
  readonly migration: { readonly limit?: number; readonly maxSeqLen: number | null };
  /** Null: no session affinity. */
  readonly sessionAffinity: SessionAffinityOptions | null;
  /** A stream silent this long fails as a lost worker; 0: never. */
  readonly stallTimeoutMs: number;
  /** The worker-selection instance of each role's routers; null: the built-in selector. */
  readonly workerSelection: Readonly<Record<WorkerType, WorkerSelectionChoice | null>>;
  readonly policyProfiles: PolicyProfiles;
  /** `--router-conditional-disagg`; null: off. */
  readonly conditionalDisagg: ConditionalDisaggSettings | null;
  /** How long an LLM stream may be silent before its worker is pinged; null: no such check. */
  readonly silence: SilenceBounds | null;
  /** `--router-tracking-hash keyed-xxh3-v1`: the provider key each model's tracking identities are keyed by; absent: public identities. */
  readonly trackingKey?: TrackingKey | null;
}

/** dynamo-ts routes each model as one partition: keyed identities are scoped by the model in this one routing group. */
const ROUTING_GROUP = 'default';

/** The workers a router routes to: their role, and whether they publish KV events. */
export interface RouterWorkers {
  readonly role: WorkerType;
  readonly publishKvEvents: boolean;
}

export const AGGREGATED_WORKERS: RouterWorkers = Object.freeze({ role: 'aggregated', publishKvEvents: true });

/**
 * The KV settings each role overrides. The decode hop gets handed-over prompts, so it routes on
 * load alone: no overlap credit, no KV reuse, no prompt-token charge. The prefill hop tracks no
 * active blocks.
 */
const ROLE_OVERRIDES: { readonly [R in WorkerType]: KvRouterSettings } = {
  aggregated: {},
  decode: { overlapScoreCredit: 0, assumeKvReuse: false, trackPrefillTokens: false },
  prefill: { trackActiveBlocks: false },
};

/**
 * With conditional disaggregation the decode hop keeps its overlap credit (upstream): the decode
 * worker's cached prefix is what decides whether it may prefill locally.
 */
const CONDITIONAL_DECODE: KvRouterSettings = { assumeKvReuse: false, trackPrefillTokens: false };

function roleOverrides(role: WorkerType, settings: RouterSettings): KvRouterSettings {
  return role === 'decode' && settings.conditionalDisagg !== null ? CONDITIONAL_DECODE : ROLE_OVERRIDES[role];
}

/** Workers that publish no KV events (bridged engines without an events endpoint): the router predicts the cache from its own decisions. */
const WITHOUT_KV_EVENTS: KvRouterSettings = { useKvEvents: false };

/** What the routers of one process share: where migration warnings go, and the record of down instances. */
export interface RouterDeps {
  logger?: MigrationLogger & DecisionLogger;
  health?: InstanceHealth;
  /** The process's watch for silent workers (LLM routers only: media and tensor work has no pace). */
  liveness?: WorkerLiveness | null;
  /** `--use-remote-indexer`: where the model's kv policy gets its overlaps instead of a local indexer. */
  remoteIndexer?: RemoteMatches;
}

/** A model's router, and what its policy offers the wiring (the policy registry's `provides`). */
export interface ModelRouter {
  readonly router: PushRouter;
  readonly provides: PolicyProvides;
}

const silent: MigrationLogger & DecisionLogger = { warn: () => undefined, debug: () => undefined };

/** The router of `card`'s workers, in the settings' mode, with their role's overrides. */
export function buildModelRouter(settings: RouterSettings, card: ModelDeploymentCard, workers: RouterWorkers = AGGREGATED_WORKERS, deps: RouterDeps = {}): ModelRouter {
  const load = new LoadTracker();
  const { policy, provides } = buildRouterPolicy(settings.mode, {
    load,
    kv: {
      ...settings.kv,
      ...roleOverrides(workers.role, settings),
      ...(workers.publishKvEvents ? {} : WITHOUT_KV_EVENTS),
      blockSize: settings.kv.blockSize ?? card.kvCacheBlockSize,
      remoteIndexer: deps.remoteIndexer ?? null,
      workerSelection: settings.workerSelection[workers.role],
      policyProfile: profileOf(settings.policyProfiles, card.displayName),
      ...(settings.trackingKey ? { trackingHash: settings.trackingKey.scoped({ model: card.displayName, routingGroup: ROUTING_GROUP }) } : {}),
    },
  });
  const router = new PushRouter(card.displayName, policy, {
    mode: settings.mode,
    load,
    busyThresholds: { ...settings.busyThresholds },
    decodeFallback: settings.decodeFallback,
    migration: { limit: settings.migration.limit ?? card.migrationLimit, maxSeqLen: settings.migration.maxSeqLen, logger: deps.logger ?? silent },
    affinity: settings.sessionAffinity && new SessionAffinity(settings.sessionAffinity),
    conditionalDisagg: settings.conditionalDisagg,
    decisionLogger: deps.logger,
    ...lostWorkerOptions(settings, deps.health),
    liveness: deps.liveness,
  });
  return { router, provides };
}

function profileOf(profiles: PolicyProfiles, model: string): PolicyProfile | null {
  return Object.hasOwn(profiles.models, model) ? profiles.models[model]! : profiles.root;
}

export type LostWorkerOptions = Pick<RouterOptions, 'health' | 'stallTimeoutMs'>;

/** Every router of the process shares one health record and watches for stalled streams. */
export function lostWorkerOptions(settings: Pick<RouterSettings, 'stallTimeoutMs'>, health?: InstanceHealth): LostWorkerOptions {
  return { health, stallTimeoutMs: settings.stallTimeoutMs };
}
