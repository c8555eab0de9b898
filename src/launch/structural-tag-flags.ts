// A worker's structural-tag flags → what its card's runtime config publishes, as upstream's
// workers resolve them: `--dyn-structural-tag [bool|JSON]`, or its older spellings
// `--dyn-enable-structural-tag` with `--dyn-structural-tag-scope` / `-schema` (accepted with a
// deprecation warning each, and refused together with the new flag).

import { ConfigError, type Config } from '../config/index.js';
import { DEFAULT_STRUCTURAL_TAG_CONFIG, structuralTagConfig, type StructuralTagConfig } from '../protocols/index.js';

type StructuralTagFlags = Pick<Config, 'dynStructuralTag' | 'dynEnableStructuralTag' | 'dynStructuralTagScope' | 'dynStructuralTagSchema'>;

export interface PublishedStructuralTag {
  /** Added to the card's `runtime_config`. */
  runtimeConfig: Record<string, unknown>;
  /** One line per older spelling used. */
  warnings: string[];
}

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];

/** `--dyn-structural-tag`'s value: off (false), on with the defaults, or on with a JSON object's settings. */
function newFlag(raw: string): StructuralTagConfig | null {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return { ...DEFAULT_STRUCTURAL_TAG_CONFIG };
  if (FALSE_WORDS.includes(word)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`--dyn-structural-tag must be true, false or a JSON object, got '${raw}'`);
  }
  try {
    return structuralTagConfig(parsed);
  } catch (err) {
    throw new ConfigError(`--dyn-structural-tag ${(err as Error).message}`);
  }
}

/**
 * The structural-tag settings a worker publishes. `enabledByDefault`: what no flag means (on for
 * engine workers, as upstream's newest default; off for the mocker, as upstream's native one).
 */
export function publishedStructuralTag(flags: StructuralTagFlags, enabledByDefault: boolean): PublishedStructuralTag {
  const { dynStructuralTag: given, dynEnableStructuralTag: enable, dynStructuralTagScope: scope, dynStructuralTagSchema: schema } = flags;
  const older = [
    enable === undefined ? null : enable ? '--dyn-enable-structural-tag' : '--no-dyn-enable-structural-tag',
    scope === undefined ? null : '--dyn-structural-tag-scope',
    schema === undefined ? null : '--dyn-structural-tag-schema',
  ].filter((flag): flag is string => flag !== null);
  const warnings = older.map((flag) => `${flag} is deprecated; use --dyn-structural-tag`);
  let config: StructuralTagConfig | null;
  if (given !== undefined) {
    config = newFlag(given);
    // Only an older switch saying the same as the new flag may stand beside it.
    const agreeing = config === null ? '--no-dyn-enable-structural-tag' : '--dyn-enable-structural-tag';
    const clashing = older.filter((flag) => flag !== agreeing);
    if (clashing.length > 0) throw new ConfigError(`--dyn-structural-tag cannot be combined with ${clashing.join(', ')}`);
  } else if (enable === false || (enable === undefined && !enabledByDefault)) {
    config = null;
  } else {
    config = { ...DEFAULT_STRUCTURAL_TAG_CONFIG, scope: scope ?? DEFAULT_STRUCTURAL_TAG_CONFIG.scope, schema: schema ?? DEFAULT_STRUCTURAL_TAG_CONFIG.schema };
  }
  if (config === null) return { runtimeConfig: { structural_tag_mode: 'off' }, warnings };
  return {
    // The v1.5 fields every frontend reads, and the whole setting as upstream's newest publishes it.
    runtimeConfig: { structural_tag_mode: 'on', structural_tag_scope: config.scope, structural_tag_schema: config.schema, structural_tag: config },
    warnings,
  };
}
