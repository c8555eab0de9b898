// The frontend's router configuration beyond single flags: the router policy file, the per-stage
// worker selections, the load-aware preset and conditional disaggregation, resolved once into the
// settings the routers are built from.
import { ConfigError, type Config } from '../../config/index.js';
import type { ConditionalDisaggSettings } from '../../router/index.js';
import { conditionalDisaggSettings } from './conditional-disagg-config.js';
import { readRouterPolicyFile, type RouterPolicyFile } from './policy-file.js';
import type { PolicyProfiles } from './policy-profiles.js';
import { stageSelections, type StageSelections } from './worker-selection-catalog.js';

export { parseRouterPolicy, type RouterPolicyFile } from './policy-file.js';
export type { PolicyProfiles } from './policy-profiles.js';
export type { StageSelections } from './worker-selection-catalog.js';

export interface RoutingConfiguration {
  /** The configuration with the load-aware preset and the file's `router:` settings applied. */
  readonly config: Config;
  readonly selections: StageSelections;
  readonly profiles: PolicyProfiles;
  readonly conditionalDisagg: ConditionalDisaggSettings | null;
}

/**
 * Upstream's `--load-aware` preset: kv routing on load alone. The file's `router:` settings are
 * applied after it and win, as upstream applies them.
 */
const LOAD_AWARE: Partial<Record<keyof Config, unknown>> = {
  routerMode: 'kv',
  routerKvOverlapScoreCredit: 0,
  routerKvEvents: false,
  routerTrackActiveBlocks: true,
  routerAssumeKvReuse: false,
  routerTrackPrefillTokens: true,
  useRemoteIndexer: false,
  serveIndexer: false,
  routerPredictedTtlSecs: undefined,
  sharedCacheType: 'none',
  sharedCacheMultiplier: 0,
};

const resolved = new WeakMap<Config, RoutingConfiguration>();

/** Reads the policy file (once per configuration) and resolves everything it and the flags say; throws ConfigError on any mistake. */
export function routingConfiguration(config: Config): RoutingConfiguration {
  const known = resolved.get(config);
  if (known) return known;
  const file: RouterPolicyFile = readRouterPolicyFile(config.routerPolicyConfig);
  const effective = Object.freeze({ ...config, ...(config.loadAware ? LOAD_AWARE : {}), ...file.settings }) as Config;
  if (config.routerPolicyConfig !== undefined && effective.routerMode !== 'kv') {
    throw new ConfigError(`--router-policy-config configures the KV router: it needs --router-mode kv (got --router-mode ${effective.routerMode})`);
  }
  const policy: RoutingConfiguration = {
    config: effective,
    selections: stageSelections(effective, file.catalog),
    profiles: file.profiles,
    conditionalDisagg: conditionalDisaggSettings(effective),
  };
  resolved.set(config, policy);
  resolved.set(effective, policy);
  return policy;
}
