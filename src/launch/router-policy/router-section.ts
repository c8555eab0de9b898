// The `router:` section of a router policy file: upstream's shared router settings, each the same
// setting as one of the frontend's options. Its values are checked by that option's own parser and
// win over the flags, as upstream applies them.
import { ConfigError, OPTIONS, parseValue, type Config, type OptionSpec } from '../../config/index.js';
import { describe, type YamlNode } from './yaml-node.js';


/** Upstream's names, each with the option it sets. */
const ROUTER_SETTINGS: Readonly<Record<string, keyof Config>> = {
  host_cache_hit_weight: 'routerHostCacheHitWeight',
  disk_cache_hit_weight: 'routerDiskCacheHitWeight',
  use_kv_events: 'routerKvEvents',
  router_replica_sync: 'routerReplicaSync',
  router_track_active_blocks: 'routerTrackActiveBlocks',
  router_track_output_blocks: 'routerTrackOutputBlocks',
  router_assume_kv_reuse: 'routerAssumeKvReuse',
  router_track_prefill_tokens: 'routerTrackPrefillTokens',
  router_tracking_hash: 'routerTrackingHash',
  router_tracking_key_file: 'routerTrackingKeyFile',
  router_tracking_key_id: 'routerTrackingKeyId',
  router_prefill_load_model: 'routerPrefillLoadModel',
  router_ttl_secs: 'routerTtlSecs',
  router_approximate_cache_policy: 'routerApproximateCachePolicy',
  router_event_threads: 'routerEventThreads',
  use_remote_indexer: 'useRemoteIndexer',
  serve_indexer: 'serveIndexer',
  enable_session_prefix_index: 'enableSessionPrefixIndex',
  shared_cache_type: 'sharedCacheType',
  router_predicted_ttl_secs: 'routerPredictedTtlSecs',
};

/** The YAML type a setting's value must have, by its option's type. */
const YAML_TYPE: Readonly<Record<OptionSpec['type'], string>> = {
  bool: 'boolean',
  int: 'number',
  float: 'number',
  enum: 'string',
  string: 'string',
  path: 'string',
  list: 'object',
};

function optionOf(key: keyof Config): OptionSpec {
  const spec = OPTIONS.find((o) => o.key === key);
  if (!spec) throw new Error(`no option ${key}`);
  return spec;
}

/** The settings the section sets, as option values; each checked as its option checks a flag. */
export function readRouterSection(node: YamlNode): Partial<Record<keyof Config, unknown>> {
  const out: Partial<Record<keyof Config, unknown>> = {};
  for (const [name, value] of node.fields(Object.keys(ROUTER_SETTINGS))) {
    const target = ROUTER_SETTINGS[name]!;
    const spec = optionOf(target);
    if (typeof value.value !== YAML_TYPE[spec.type]) value.fail(`must be a ${YAML_TYPE[spec.type]} (as ${describeFlag(spec)}), got ${describe(value.value)}`);
    const origin = `${value.source}:${value.line}: ${value.path}`;
    const parsed = parseValue(spec, String(value.value), origin);
    if (spec.type === 'enum' && spec.choices[parsed as string] === false) {
      throw new ConfigError(`${origin} ${String(parsed)} is not supported yet in this build${spec.notBuiltHint ? `; ${spec.notBuiltHint}` : ''}`);
    }
    out[target] = parsed;
  }
  return out;
}

function describeFlag(spec: OptionSpec): string {
  return spec.flag === undefined ? spec.env : `--${spec.flag}`;
}
