// `--router-policy-config FILE`: upstream's startup-only router policy document, read and checked
// whole before anything starts. Its sections: `router:` (shared settings, as the flags), the root
// policy profile and per-model `models:` profiles (policy-class queues), and `worker_selection`
// (named policy instances and the stage each serves).
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../../config/index.js';
import { PROFILE_KEYS, readModelProfiles, readProfile, type PolicyProfiles } from './policy-profiles.js';
import { readRouterSection } from './router-section.js';
import { NO_CATALOG, readSelectionCatalog, type SelectionCatalog } from './worker-selection-catalog.js';
import { YamlNode } from './yaml-node.js';

export interface RouterPolicyFile {
  /** The `router:` section's settings, as option values; they win over the flags. */
  readonly settings: Partial<Record<keyof Config, unknown>>;
  readonly profiles: PolicyProfiles;
  readonly catalog: SelectionCatalog;
}

export const NO_POLICY_FILE: RouterPolicyFile = { settings: {}, profiles: { root: null, models: {} }, catalog: NO_CATALOG };

const TOP_KEYS = ['router', ...PROFILE_KEYS, 'models', 'worker_selection'];

/** Reads and checks the document; every mistake fails with the file, line and key. */
export function parseRouterPolicy(text: string, source: string): RouterPolicyFile {
  const doc = YamlNode.parse(text, source);
  if (doc.isNull) doc.fail('the file is empty: it needs at least one of router, policy_classes, models or worker_selection');
  const top = doc.fields(TOP_KEYS);
  const router = top.get('router');
  const models = top.get('models');
  const selection = top.get('worker_selection');
  const profileKeys = PROFILE_KEYS.filter((k) => top.has(k));
  return {
    settings: router === undefined || router.isNull ? {} : readRouterSection(router),
    profiles: {
      root: profileKeys.length === 0 ? null : readProfile(top, top.get(profileKeys[0]!)!),
      models: models === undefined ? {} : readModelProfiles(models),
    },
    catalog: selection === undefined ? NO_CATALOG : readSelectionCatalog(selection),
  };
}

/** The file `--router-policy-config` names, read and checked; none when it is unset. */
export function readRouterPolicyFile(path: string | undefined): RouterPolicyFile {
  if (path === undefined) return NO_POLICY_FILE;
  const source = `--router-policy-config ${path}`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${source}: cannot read it: ${(err as Error).message}`);
  }
  return parseRouterPolicy(text, source);
}
