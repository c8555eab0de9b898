// The mocker's `--extra-engine-args FILE` (reference/disagg-router.md §4): a JSON object of
// upstream's MockEngineArgs fields that replaces every engine flag: the engine settings start from
// their defaults and take the file's values. Each value is checked like the flag it stands for.
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import { defaultFor, type OptionSpec, type OptionValue } from './option-spec.js';
import { OPTIONS, type Config } from './option-table.js';
import { parseValue } from './parse-value.js';

/** MockEngineArgs field → the Config key of the flag it stands for. */
const ENGINE_FIELDS: Readonly<Record<string, keyof Config>> = {
  num_gpu_blocks: 'numGpuBlocksOverride',
  block_size: 'blockSize',
  max_num_seqs: 'maxNumSeqs',
  max_num_batched_tokens: 'maxNumBatchedTokens',
  enable_prefix_caching: 'enablePrefixCaching',
  enable_chunked_prefill: 'enableChunkedPrefill',
  watermark: 'watermark',
  speedup_ratio: 'speedupRatio',
  decode_speedup_ratio: 'decodeSpeedupRatio',
  dp_size: 'dataParallelSize',
  startup_time: 'startupTime',
  worker_type: 'workerType',
  engine_type: 'engineType',
  planner_profile_data: 'plannerProfileData',
};

/** Upstream's legacy role booleans. */
const LEGACY_ROLES: Readonly<Record<string, string>> = { is_prefill: 'prefill', is_decode: 'decode' };

/** `config` with the engine settings of `config.extraEngineArgs`, when set; otherwise `config` itself. */
export function withExtraEngineArgs(config: Config): Config {
  const file = config.extraEngineArgs;
  if (file === undefined) return config;
  const where = `--extra-engine-args ${file}`;
  const args = readArgs(file, where);
  const out: Record<string, OptionValue> = { ...config };
  for (const key of Object.values(ENGINE_FIELDS)) out[key] = defaultFor(specOf(key), 'mocker');
  const roles = Object.keys(LEGACY_ROLES).filter((field) => args[field] === true);
  if (roles.length > 1) throw new ConfigError(`${where}: is_prefill and is_decode cannot both be true`);
  for (const [field, value] of Object.entries(args)) {
    if (Object.hasOwn(LEGACY_ROLES, field)) {
      if (typeof value !== 'boolean') throw new ConfigError(`${where}: ${field} must be a boolean`);
      continue;
    }
    const key = ENGINE_FIELDS[field];
    if (key === undefined) throw new ConfigError(`${where}: unknown field '${field}' (known: ${[...Object.keys(ENGINE_FIELDS), ...Object.keys(LEGACY_ROLES)].join(', ')})`);
    if (value === null) continue;
    out[key] = checked(specOf(key), value, `${where}: ${field}`);
  }
  if (roles.length === 1 && args.worker_type === undefined) out.workerType = checked(specOf('workerType'), LEGACY_ROLES[roles[0]!]!, `${where}: ${roles[0]}`);
  return out as unknown as Config;
}

function readArgs(file: string, where: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`${where}: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${where}: extra engine args must be a JSON object`);
  return parsed as Record<string, unknown>;
}

function specOf(key: keyof Config): OptionSpec {
  return OPTIONS.find((spec) => spec.key === key)!;
}

/** The value as the flag would take it, and only when this build has what it asks for. */
function checked(spec: OptionSpec, value: unknown, origin: string): OptionValue {
  if (typeof value === 'object') throw new ConfigError(`${origin} must be a single value, got ${JSON.stringify(value)}`);
  const parsed = parseValue(spec, String(value), origin);
  const notBuiltChoice = spec.type === 'enum' && typeof parsed === 'string' && spec.choices[parsed] === false;
  if (notBuiltChoice || (!spec.built && parsed !== defaultFor(spec, 'mocker'))) throw new ConfigError(`${origin} ${String(value)} is not available yet in this build`);
  return parsed;
}
