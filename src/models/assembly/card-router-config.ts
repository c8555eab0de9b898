// A worker card's own router settings (upstream's `router_config`: the router mode and KV tuning a
// worker set declares with its `--router-*` flags). They replace the frontend's for the hop that
// routes to those workers; an omitted field takes the shared default, not the frontend's value,
// as upstream. dynamo-ts applies them to the prefill hop, from the first prefill card.
import { ROUTER_MODES, SELECTABLE_QUEUE_POLICIES, ValidationError, type RouterMode } from '../../protocols/index.js';
import { DEFAULT_KV_ROUTER_OPTIONS } from '../../router/index.js';
import type { KvRouterSettings, RouterSettings } from './model-router.js';

type Json = Record<string, unknown>;

/** The card's `kv_router_config` fields dynamo-ts applies, by upstream's names, and the value type each must have. */
const KV_FIELDS: Readonly<Record<string, [key: keyof KvRouterSettings, type: 'number' | 'boolean']>> = {
  overlap_score_credit: ['overlapScoreCredit', 'number'],
  overlap_score_credit_decay: ['overlapScoreCreditDecay', 'number'],
  prefill_load_scale: ['prefillLoadScale', 'number'],
  decode_active_request_weight: ['decodeActiveRequestWeight', 'number'],
  host_cache_hit_weight: ['hostCacheHitWeight', 'number'],
  disk_cache_hit_weight: ['diskCacheHitWeight', 'number'],
  shared_cache_multiplier: ['sharedCacheMultiplier', 'number'],
  router_temperature: ['temperature', 'number'],
  use_kv_events: ['useKvEvents', 'boolean'],
  router_ttl_secs: ['ttlSecs', 'number'],
  router_track_active_blocks: ['trackActiveBlocks', 'boolean'],
  router_track_output_blocks: ['trackOutputBlocks', 'boolean'],
  router_assume_kv_reuse: ['assumeKvReuse', 'boolean'],
  router_track_prefill_tokens: ['trackPrefillTokens', 'boolean'],
};

/** Upstream's Rust names of the modes, as upstream's workers write them in their cards. */
const CARD_MODE_NAMES: { readonly [M in RouterMode]: string } = {
  'round-robin': 'RoundRobin',
  random: 'Random',
  kv: 'KV',
  direct: 'Direct',
  'least-loaded': 'LeastLoaded',
  'device-aware-weighted': 'DeviceAwareWeighted',
  'power-of-two': 'PowerOfTwoChoices',
};

/**
 * The `router_config` a worker set declares in its card: its mode and, in kv mode only (the only
 * mode that reads it, as upstream), the KV tuning a frontend applies from a card.
 */
export function declaredRouterConfig(mode: RouterMode, kv: KvRouterSettings): Json {
  if (mode !== 'kv') return { router_mode: CARD_MODE_NAMES[mode], kv_router_config: null };
  const fields: Json = {};
  for (const [name, [key]] of Object.entries(KV_FIELDS)) fields[name] = kv[key] ?? DEFAULT_KV_ROUTER_OPTIONS[key as keyof typeof DEFAULT_KV_ROUTER_OPTIONS];
  fields.router_queue_threshold = kv.queueThreshold ?? null;
  fields.router_queue_policy = kv.queuePolicy ?? DEFAULT_KV_ROUTER_OPTIONS.queuePolicy;
  return { router_mode: CARD_MODE_NAMES.kv, kv_router_config: fields };
}

/** Upstream's Rust spellings of some modes. */
const MODE_ALIASES: Readonly<Record<string, RouterMode>> = { 'power-of-two-choices': 'power-of-two', roundrobin: 'round-robin' };

/** `RoundRobin`, `round_robin`, `KV`, `kv` → the mode's name here. */
function modeOf(raw: unknown): RouterMode | null {
  if (typeof raw !== 'string') return null;
  const name = raw
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();
  if ((ROUTER_MODES as readonly string[]).includes(name)) return name as RouterMode;
  return MODE_ALIASES[name] ?? null;
}

/**
 * The settings for routing to the workers of `cardJson`: the frontend's when the card declares
 * none, else the card's mode and KV tuning (shared defaults where it is silent) over them.
 * Throws a ValidationError when the card declares something dynamo-ts cannot honour.
 */
export function cardRouterSettings(cardJson: Json, frontend: RouterSettings): RouterSettings {
  const declared = cardJson.router_config;
  if (declared === undefined || declared === null) return frontend;
  if (typeof declared !== 'object' || Array.isArray(declared)) throw new ValidationError('router_config must be an object');
  const config = declared as Json;
  const mode = modeOf(config.router_mode ?? 'round-robin');
  if (mode === null) throw new ValidationError(`unknown router_mode ${JSON.stringify(config.router_mode)} (known: ${ROUTER_MODES.join(', ')})`);
  const kv: Record<string, unknown> = {};
  const given = (config.kv_router_config ?? {}) as Json;
  for (const [name, [key, type]] of Object.entries(KV_FIELDS)) {
    const value = given[name] ?? DEFAULT_KV_ROUTER_OPTIONS[key as keyof typeof DEFAULT_KV_ROUTER_OPTIONS];
    if (typeof value !== type) throw new ValidationError(`kv_router_config.${name} must be a ${type}, got ${JSON.stringify(value)}`);
    kv[key] = value;
  }
  const policy = given.router_queue_policy ?? 'fcfs';
  if (!(SELECTABLE_QUEUE_POLICIES as readonly unknown[]).includes(policy)) throw new ValidationError(`kv_router_config.router_queue_policy must be fcfs or wspt, got ${JSON.stringify(policy)}`);
  const threshold = given.router_queue_threshold ?? null;
  if (threshold !== null && typeof threshold !== 'number') throw new ValidationError(`kv_router_config.router_queue_threshold must be a number, got ${JSON.stringify(threshold)}`);
  const ttl = config.session_affinity_ttl_secs;
  return {
    ...frontend,
    mode,
    kv: { ...frontend.kv, ...(kv as KvRouterSettings), queueThreshold: threshold, queuePolicy: policy as KvRouterSettings['queuePolicy'] },
    sessionAffinity: typeof ttl === 'number' ? { ttlSecs: ttl, mode: config.session_affinity_mode === 'soft' ? 'soft' : 'hard' } : null,
  };
}
