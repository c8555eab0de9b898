import { APPROXIMATE_CACHE_POLICIES, ROUTER_MODES, SELECTABLE_QUEUE_POLICIES, SHARED_CACHE_TYPES, TRACKING_HASHES } from '../../protocols/index.js';
import { allBuilt, type OptionSpec } from '../option-spec.js';

/** Where upstream moves the settings it deprecates for removal in v1.7. */
const POLICY_FILE = '--router-policy-config';
/** The AISimulate perf model settings (`--router-prefill-load-model ais`); the legacy `aic` spellings are aliases. */
const AIS = { group: 'AISimulate Perf Model', scope: 'frontend', built: true } as const;
const RECORDED = 'recorded; the analytic predictor does not vary with it';
const MOE_RULE = 'with any MoE size, tp × attention-dp must equal moe-tp × moe-ep';
const DEFAULT_PARAMETER = (name: string) => `${name} in the parameters of a dynamo-default-cost-fn worker_selection instance in ${POLICY_FILE}`;

export const routerOptions = [
  {
    key: 'routerMode', flag: 'router-mode', env: 'DYN_ROUTER_MODE', type: 'enum',
    choices: allBuilt(ROUTER_MODES),
    group: 'Router', scope: 'both', built: true, default: 'round-robin',
    help: "How a worker is picked for each request. On a worker (mocker, worker openai): given, the worker set declares this mode and the KV tuning options in its model card's router_config, which the frontend applies to the hop that routes to it (prefill workers); unset, the card declares nothing and the frontend's settings apply",
  },
  {
    key: 'loadAware', flag: 'load-aware', env: 'DYN_ROUTER_LOAD_AWARE', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    supersededBy: `a dynamo-default-cost-fn instance with overlap_score_credit 0 and the router: tracking settings in ${POLICY_FILE}`,
    help: 'Preset for KV routing on load alone; implies --router-mode kv. As upstream: overlap credit 0, no KV events (the router predicts), no KV-reuse assumption, active blocks and prefill tokens tracked, no remote or served indexer',
  },
  {
    key: 'routerKvOverlapScoreCredit', flag: 'router-kv-overlap-score-credit', env: 'DYN_ROUTER_KV_OVERLAP_SCORE_CREDIT',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 1,
    supersededBy: DEFAULT_PARAMETER('overlap_score_credit'),
    help: 'Credit multiplier for device-local prefix overlap; above 1 gives cached blocks extra credit (the adjusted prefill cost stays >= 0); 0 ignores prefix caches',
  },
  {
    key: 'routerKvOverlapScoreCreditDecay', flag: 'router-kv-overlap-score-credit-decay', env: 'DYN_ROUTER_KV_OVERLAP_SCORE_CREDIT_DECAY',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 0,
    supersededBy: DEFAULT_PARAMETER('overlap_score_credit_decay'),
    help: 'Decay of the overlap credit on workers whose prefill queue exceeds the least-loaded one\'s (0: none; 1 halves it at one request of excess)',
  },
  {
    key: 'routerPrefillLoadScale', flag: 'router-prefill-load-scale', env: 'DYN_ROUTER_PREFILL_LOAD_SCALE',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 1,
    supersededBy: DEFAULT_PARAMETER('prefill_load_scale'),
    help: 'Scale of the prompt-side prefill load before decode blocks are added',
  },
  {
    key: 'routerDecodeActiveRequestWeight', flag: 'router-decode-active-request-weight', env: 'DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 0,
    supersededBy: DEFAULT_PARAMETER('decode_active_request_weight'),
    help: 'Weight of active decode requests in the worker cost',
  },
  {
    key: 'routerHostCacheHitWeight', flag: 'router-host-cache-hit-weight', env: 'DYN_ROUTER_HOST_CACHE_HIT_WEIGHT',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 0.75,
    help: 'Credit for prefix blocks cached in host memory',
  },
  {
    key: 'routerDiskCacheHitWeight', flag: 'router-disk-cache-hit-weight', env: 'DYN_ROUTER_DISK_CACHE_HIT_WEIGHT',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 0.25,
    help: 'Credit for prefix blocks cached on disk',
  },
  {
    key: 'routerTemperature', flag: 'router-temperature', env: 'DYN_ROUTER_TEMPERATURE',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true, default: 0,
    supersededBy: DEFAULT_PARAMETER('router_temperature'),
    help: 'Softmax temperature for sampling among workers; 0 picks the best deterministically',
  },
  {
    key: 'routerKvEvents', flag: 'router-kv-events', env: 'DYN_ROUTER_USE_KV_EVENTS', type: 'bool',
    group: 'Router', scope: 'both', built: true, default: true,
    help: 'Use KV cache events from workers; disable for prediction-based (approximate) routing',
  },
  {
    key: 'routerTtlSecs', flag: 'router-ttl-secs', env: 'DYN_ROUTER_TTL_SECS',
    type: 'float', min: 0, minExclusive: true, group: 'Router', scope: 'both', built: true, default: 120,
    help: 'Lifetime of predicted blocks when KV events are disabled',
  },
  {
    key: 'routerPredictedTtlSecs', flag: 'router-predicted-ttl-secs', env: 'DYN_ROUTER_PREDICTED_TTL_SECS',
    type: 'float', min: 0, minExclusive: true, group: 'Router', scope: 'frontend', built: true,
    help: 'Predict-on-route beside KV events: each routing decision also counts as cached on its worker for this many seconds, in a side indexer read with the events\' one, so a burst of requests sharing a prefix stays together before the worker\'s events arrive (needs --router-kv-events; off when unset; independent of --router-ttl-secs)',
  },
  {
    key: 'routerApproximateCachePolicy', flag: 'router-approximate-cache-policy', env: 'DYN_ROUTER_APPROXIMATE_CACHE_POLICY',
    type: 'enum', choices: allBuilt(APPROXIMATE_CACHE_POLICIES),
    group: 'Router', scope: 'frontend', built: true, default: 'ttl',
    help: "How approximate mode (--no-router-kv-events) forgets the blocks it predicts: ttl, after --router-ttl-secs; lru (experimental), when a worker rank holds more than the KV blocks it advertises, least recently routed first (blocks of requests in flight stay)",
  },
  {
    key: 'routerReplicaSync', flag: 'router-replica-sync', env: 'DYN_ROUTER_REPLICA_SYNC', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: 'Share active-sequence load between several frontend replicas over the event plane (kv mode, frontend command)',
  },
  {
    key: 'routerSnapshotThreshold', flag: 'router-snapshot-threshold', env: 'DYN_ROUTER_SNAPSHOT_THRESHOLD',
    type: 'int', min: 1, group: 'Router', scope: 'frontend', built: true, default: 1000000,
    help: 'KV events applied between two snapshots of the router state to the NATS object store (kv mode, NATS event plane with JetStream)',
  },
  {
    key: 'routerResetStates', flag: 'router-reset-states', env: 'DYN_ROUTER_RESET_STATES', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: 'Delete the saved router state on startup instead of loading it (affects existing replicas; NATS event plane)',
  },
  {
    key: 'routerTrackActiveBlocks', flag: 'router-track-active-blocks', env: 'DYN_ROUTER_TRACK_ACTIVE_BLOCKS', type: 'bool',
    group: 'Router', scope: 'both', built: true, default: true,
    help: 'Count blocks held by in-flight requests as worker load',
  },
  {
    key: 'routerAssumeKvReuse', flag: 'router-assume-kv-reuse', env: 'DYN_ROUTER_ASSUME_KV_REUSE', type: 'bool',
    group: 'Router', scope: 'both', built: true, default: true,
    help: 'Assume cached prefixes are reused when tracking active blocks',
  },
  {
    key: 'routerTrackOutputBlocks', flag: 'router-track-output-blocks', env: 'DYN_ROUTER_TRACK_OUTPUT_BLOCKS', type: 'bool',
    group: 'Router', scope: 'both', built: true, default: false,
    help: 'Also count output blocks, with fractional decay, during generation',
  },
  {
    key: 'routerTrackPrefillTokens', flag: 'router-track-prefill-tokens', env: 'DYN_ROUTER_TRACK_PREFILL_TOKENS', type: 'bool',
    group: 'Router', scope: 'both', built: true, default: true,
    help: 'Count prompt-side prefill tokens as worker load',
  },
  {
    key: 'routerTrackingHash', flag: 'router-tracking-hash', env: 'DYN_ROUTER_TRACKING_HASH',
    type: 'enum', choices: allBuilt(TRACKING_HASHES),
    group: 'Router', scope: 'frontend', built: true, default: 'public-xxh3-v1',
    help: 'Hash of the sequence identities the KV router derives to track active sequences (in-flight blocks, projected load, replica sync): public-xxh3-v1, the public block chain; keyed-xxh3-v1 (experimental), XXH3 seeded from a keyed BLAKE3 digest of the key id, model, block size, cache salt and LoRA adapter, so identities depend on a provider key (needs --router-tracking-key-file and --router-tracking-key-id). The indexers and KV events keep the public hashes',
  },
  {
    key: 'routerTrackingKeyFile', flag: 'router-tracking-key-file', env: 'DYN_ROUTER_TRACKING_KEY_FILE',
    type: 'path', metavar: '<file>', group: 'Router', scope: 'frontend', built: true,
    help: 'File holding the provider tracking key: exactly 32 raw bytes (--router-tracking-hash keyed-xxh3-v1 only). An unreadable or wrong-sized key stops startup',
  },
  {
    key: 'routerTrackingKeyId', flag: 'router-tracking-key-id', env: 'DYN_ROUTER_TRACKING_KEY_ID',
    type: 'string', group: 'Router', scope: 'frontend', built: true,
    help: 'Provider-managed epoch of the tracking key, mixed into every keyed identity (--router-tracking-hash keyed-xxh3-v1 only; nonempty, no surrounding spaces). Rotate key and id together and restart every router',
  },
  {
    key: 'sharedCacheType', flag: 'shared-cache-type', env: 'DYN_SHARED_CACHE_TYPE',
    type: 'enum', choices: allBuilt(SHARED_CACHE_TYPES),
    group: 'Router', scope: 'frontend', built: true, default: 'none',
    help: "Experimental: the external KV pool every worker can fetch from (SGLang HiCache's L3 on Mooncake). none: ignored; hicache: the KV router keeps a shared-pool index from the blocks workers report in the external storage tier, and credits each worker the pool's blocks past its device prefix at --shared-cache-multiplier (needs --router-mode kv)",
  },
  {
    key: 'sharedCacheMultiplier', flag: 'shared-cache-multiplier', env: 'DYN_SHARED_CACHE_MULTIPLIER',
    type: 'float', min: 0, max: 1, group: 'Router', scope: 'both', built: true, default: 0.5,
    supersededBy: DEFAULT_PARAMETER('shared_cache_multiplier'),
    help: 'Experimental: credit per shared-pool block past a worker\'s device prefix, as a share of a device hit (0.5: a fetch from the pool costs half a recompute; 0 ignores the pool). Read with --shared-cache-type hicache',
  },
  {
    key: 'enableSessionPrefixIndex', flag: 'enable-session-prefix-index', env: 'DYN_ENABLE_SESSION_PREFIX_INDEX', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: "Experimental: the KV router keeps each session's block lineage per worker in a logical prefix index, apart from its cache indexer: a routed request with a session id (x-dynamo-session-id or an agent's session header) makes the deepest block its worker holds of the prompt that session's frontier there, as does a stored-blocks KV event naming the session; a removed-blocks event moves that worker's frontiers on or under those blocks back above them, a clear drops them. At most 16384 sessions, the least recently active dropped first; no other removal. Nothing in routing reads it (as upstream): the kv policy offers it as a read-only lineage view (docs/router-configuration.md). Needs --router-mode kv and the router's own indexer (not --use-remote-indexer)",
  },
  {
    key: 'routerPrefillLoadModel', flag: 'router-prefill-load-model', env: 'DYN_ROUTER_PREFILL_LOAD_MODEL',
    type: 'enum', choices: { none: true, ais: true }, choiceAliases: { aic: 'ais' },
    group: 'Router', scope: 'frontend', built: true, default: 'none',
    help: "Prompt-side load model: none (static) or ais (each worker's oldest active prefill drains over its predicted duration; needs --router-mode kv and the AISimulate perf model: --ais-backend/--ais-system/--ais-model-path or --ais-perf-config; aic, the legacy name, is read as ais). NVIDIA's AISimulate database is not available in dynamo-ts: the prediction comes from an analytic model (the mocker's prefill timing divided by the tp size) behind an interface a database-backed predictor can implement",
  },
  {
    key: 'routerEventThreads', flag: 'router-event-threads', env: 'DYN_ROUTER_EVENT_THREADS',
    type: 'int', min: 1, group: 'Router', scope: 'frontend', built: true, default: 4,
    help: 'KV indexer threads: accepted for compatibility; the indexer stays on the event loop, because handing each KV event to an indexer thread costs the event loop 5-15x the CPU of applying it, and a query across threads costs a round trip of ~0.1-0.5 ms against ~10 us inline (bench/indexer-threads.ts, bench/RESULTS.md)',
  },
  {
    key: 'routerQueueThreshold', flag: 'router-queue-threshold', env: 'DYN_ROUTER_QUEUE_THRESHOLD',
    type: 'float', min: 0, group: 'Router', scope: 'both', built: true,
    supersededBy: `policy_classes[].prefill_busy_threshold_frac in ${POLICY_FILE}`,
    help: 'Queue requests while every worker\'s active prefill tokens exceed this multiple of its max_num_batched_tokens (no queue when unset); without a policy file it is the busy threshold of the one policy class, default',
  },
  {
    key: 'routerQueuePolicy', flag: 'router-queue-policy', env: 'DYN_ROUTER_QUEUE_POLICY',
    type: 'enum', choices: allBuilt(SELECTABLE_QUEUE_POLICIES),
    removed: { lcfs: 'upstream accepts only fcfs and wspt for the router queue' },
    group: 'Router', scope: 'both', built: true, default: 'fcfs',
    supersededBy: `policy_classes[].queue_policy in ${POLICY_FILE}`,
    help: 'Order of the router queue: fcfs (priority, then arrival: tail TTFT) or wspt (priority over uncached prompt tokens: average TTFT); without a policy file it is the order of the one policy class, default',
  },
  {
    key: 'routerPolicyConfig', flag: 'router-policy-config', env: 'DYN_ROUTER_POLICY_CONFIG',
    type: 'path', mustExist: true, metavar: '<file.yaml>',
    group: 'Router', scope: 'frontend', built: true,
    help: 'KV router policy file, read once at startup (docs/router-configuration.md): router: shared settings (they win over the flags), policy_classes (queues: prefill_busy_threshold[_frac], queue_policy, quantum, limits) with default_policy_family and uncached_isl_buckets, models: per-model profiles, and worker_selection (instances of dynamo-default-cost-fn or dynamo-two-tier-cost-fn, chosen per stage: aggregated, prefill, decode). Needs --router-mode kv; a bad file stops startup naming the file, line and key',
  },
  {
    key: 'routerPrefillPolicy', flag: 'router-prefill-policy', env: 'DYN_ROUTER_PREFILL_POLICY', type: 'string',
    group: 'Router', scope: 'frontend', built: true,
    supersededBy: `worker_selection.prefill in ${POLICY_FILE}`,
    help: 'The worker_selection instance that picks prefill workers (disaggregated serving), by name; default: the built-in selector. Wins over DYN_ROUTER_WORKER_SELECTION_POLICY and the file\'s worker_selection.prefill',
  },
  {
    key: 'routerDecodePolicy', flag: 'router-decode-policy', env: 'DYN_ROUTER_DECODE_POLICY', type: 'string',
    group: 'Router', scope: 'frontend', built: true,
    supersededBy: `worker_selection.decode in ${POLICY_FILE}`,
    help: 'The worker_selection instance that picks decode workers, by name; default: the built-in selector. Wins over DYN_ROUTER_WORKER_SELECTION_POLICY and the file\'s worker_selection.decode',
  },
  {
    key: 'routerWorkerSelectionPolicy', env: 'DYN_ROUTER_WORKER_SELECTION_POLICY', type: 'string',
    group: 'Router', scope: 'frontend', built: true,
    help: 'The worker_selection instance every stage uses (aggregated, prefill, decode), over the file\'s per-stage choices; default: the built-in selector (a quick A/B of a policy against it)',
  },
  {
    key: 'routerConditionalDisagg', flag: 'router-conditional-disagg', env: 'DYN_ROUTER_CONDITIONAL_DISAGG', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: 'Disaggregated serving: let a request skip the remote prefill and prefill on its decode worker when the policy of --router-conditional-disagg-config says so (short or mostly cached prompts, or a busy prefill pool); such requests carry the x-bypass-remote-prefill annotation. Needs --router-mode kv with KV events',
  },
  {
    key: 'routerConditionalDisaggConfig', flag: 'router-conditional-disagg-config', env: 'DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG',
    type: 'string', metavar: '<JSON>',
    group: 'Router', scope: 'frontend', built: true,
    help: 'Conditional disaggregation settings, a JSON object: policy (isl_bounding, the default: skip when the uncached prompt is under eff_isl_threshold, 2048 tokens, and under eff_isl_ratio_threshold, 0.7, of the prompt; prefill_load: skip when the chosen prefill worker is busy; isl_or_load: either), prefill_busy_threshold (a multiple of max_num_batched_tokens; default --router-queue-threshold), decode_busy_threshold (never skip onto a decode worker whose projected KV blocks exceed this share of its capacity). Needs --router-conditional-disagg',
  },
  {
    key: 'routerMinInitialWorkers', flag: 'router-min-initial-workers', env: 'DYN_ROUTER_MIN_INITIAL_WORKERS',
    type: 'int', min: 0, group: 'Router', scope: 'frontend', built: true, default: 0,
    help: 'Hold readiness until this many distinct workers have registered: /health and /v1/models answer 503, gRPC ServerReady is false and inference requests get 503 until then (0: ready at once)',
  },
  {
    key: 'routerSessionAffinityTtlSecs', flag: 'router-session-affinity-ttl-secs', env: 'DYN_ROUTER_SESSION_AFFINITY_TTL_SECS',
    type: 'int', min: 1, max: 31536000, group: 'Router', scope: 'frontend', built: true,
    help: 'Session affinity: requests of one session (x-dynamo-session-id, else Claude Code, Codex or OpenCode session headers, or nvext.session_id) go to the worker its first request went to, until the session has been idle this long (off when unset; shared between replicas with --router-replica-sync)',
  },
  {
    key: 'routerSessionAffinityMode', flag: 'router-session-affinity-mode', env: 'DYN_ROUTER_SESSION_AFFINITY_MODE',
    type: 'enum', choices: { hard: true, soft: true },
    group: 'Router', scope: 'frontend', built: true, default: 'hard',
    help: 'hard: a session stays on its worker, busy or not, until the worker is gone; soft: a bound worker over a busy threshold is passed over and the session moves to the worker chosen instead',
  },
  {
    key: 'decodeFallback', flag: 'decode-fallback', env: 'DYN_DECODE_FALLBACK', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: 'Disaggregated serving: while a model has decode workers but no prefill worker, serve its requests aggregated on the decode workers instead of answering 503',
  },
  {
    key: 'serveIndexer', flag: 'serve-indexer', env: 'DYN_SERVE_INDEXER', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: "Serve this router's KV indexer to other routers (needs --router-mode kv): kv_indexer_query (and, with --no-router-kv-events, kv_indexer_record_routing_decision) on the workers' namespace and component, one indexer per model",
  },
  {
    key: 'useRemoteIndexer', flag: 'use-remote-indexer', env: 'DYN_USE_REMOTE_INDEXER', type: 'bool',
    group: 'Router', scope: 'frontend', built: true, default: false,
    help: 'Experimental: query the KV indexer another router serves with --serve-indexer on the workers\' component instead of keeping a local one',
  },
  {
    key: 'aisPerfConfig', flag: 'ais-perf-config', env: 'DYN_AIS_PERF_CONFIG', type: 'string', metavar: '<json|file>',
    ...AIS,
    help: 'The complete AISimulate perf model config (backend, system, model and worker_type required; tp, moe_tp_size, moe_ep_size, attention_dp, nextn and backend_version optional) as a JSON object or the path of a JSON/YAML file; read when --router-prefill-load-model ais needs it; cannot be combined with the flat --ais-* identity flags, which stand for a config with worker_type aggregated',
  },
  {
    key: 'aisBackend', flag: 'ais-backend', flagAliases: ['aic-backend'], env: 'DYN_AIS_BACKEND', retiredEnv: 'DYN_AIC_BACKEND', type: 'string',
    ...AIS,
    help: `Backend family the perf model describes, e.g. vllm or sglang (config key backend; ${RECORDED})`,
  },
  {
    key: 'aisSystem', flag: 'ais-system', flagAliases: ['aic-system'], env: 'DYN_AIS_SYSTEM', retiredEnv: 'DYN_AIC_SYSTEM', type: 'string',
    ...AIS,
    help: `Hardware/system identifier, e.g. h200_sxm (config key system; ${RECORDED})`,
  },
  {
    key: 'aisBackendVersion', flag: 'ais-backend-version', flagAliases: ['aic-backend-version'], env: 'DYN_AIS_BACKEND_VERSION', retiredEnv: 'DYN_AIC_BACKEND_VERSION', type: 'string',
    ...AIS,
    help: `Pinned perf database version, the backend's default when unset (config key backend_version; ${RECORDED})`,
  },
  {
    key: 'aisTpSize', flag: 'ais-tp-size', flagAliases: ['aic-tp-size'], env: 'DYN_AIS_TP_SIZE', retiredEnv: 'DYN_AIC_TP_SIZE', type: 'int', min: 1,
    ...AIS,
    help: 'Tensor-parallel size (config key tp, 1 when unset): the analytic predictor divides the prefill time by it',
  },
  {
    key: 'aisModelPath', flag: 'ais-model-path', flagAliases: ['aic-model-path'], env: 'DYN_AIS_MODEL_PATH', retiredEnv: 'DYN_AIC_MODEL_PATH', type: 'string',
    ...AIS,
    help: `Model path or identifier of the perf lookup (config key model; ${RECORDED})`,
  },
  {
    key: 'aisMoeTpSize', flag: 'ais-moe-tp-size', flagAliases: ['aic-moe-tp-size'], env: 'DYN_AIS_MOE_TP_SIZE', retiredEnv: 'DYN_AIC_MOE_TP_SIZE', type: 'int', min: 1,
    ...AIS,
    help: `MoE tensor-parallel size (config key moe_tp_size); ${MOE_RULE}`,
  },
  {
    key: 'aisMoeEpSize', flag: 'ais-moe-ep-size', flagAliases: ['aic-moe-ep-size'], env: 'DYN_AIS_MOE_EP_SIZE', retiredEnv: 'DYN_AIC_MOE_EP_SIZE', type: 'int', min: 1,
    ...AIS,
    help: `MoE expert-parallel size (config key moe_ep_size); ${MOE_RULE}`,
  },
  {
    key: 'aisAttentionDpSize', flag: 'ais-attention-dp-size', flagAliases: ['aic-attention-dp-size'], env: 'DYN_AIS_ATTENTION_DP_SIZE', retiredEnv: 'DYN_AIC_ATTENTION_DP_SIZE', type: 'int', min: 1,
    ...AIS,
    help: `Attention data-parallel size (config key attention_dp); ${MOE_RULE}`,
  },
  {
    key: 'aisNextn', flag: 'ais-nextn', flagAliases: ['aic-nextn'], env: 'DYN_AIS_NEXTN', retiredEnv: 'DYN_AIC_NEXTN', type: 'int', min: 0,
    ...AIS,
    help: `Speculative (MTP) draft tokens per step (config key nextn; ${RECORDED})`,
  },
  {
    key: 'aisNextnAcceptRates', flag: 'ais-nextn-accept-rates', flagAliases: ['aic-nextn-accept-rates'], env: 'DYN_AIS_NEXTN_ACCEPT_RATES', retiredEnv: 'DYN_AIC_NEXTN_ACCEPT_RATES', type: 'string',
    pattern: { regex: /^\d*\.?\d+(,\d*\.?\d+)*$/, describe: 'comma-separated numbers' },
    ...AIS,
    help: `Comma-separated conditional acceptance rates: entry i is P(draft i accepted | all earlier drafts accepted) (${RECORDED})`,
  },
  {
    key: 'aisMtpSeed', flag: 'ais-mtp-seed', flagAliases: ['aic-mtp-seed'], env: 'DYN_AIS_MTP_SEED', retiredEnv: 'DYN_AIC_MTP_SEED', type: 'int', default: 42,
    ...AIS,
    help: `Seed of the simulated draft acceptance (${RECORDED})`,
  },
] as const satisfies readonly OptionSpec[];
