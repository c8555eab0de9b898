// The AISimulate perf model a feature asks for (`--router-prefill-load-model ais`), as the mapping
// upstream's estimator takes: either authored whole (`--ais-perf-config`, JSON or a JSON/YAML
// file) or spelled by the flat `--ais-*` flags, which stand for an aggregated worker.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { ConfigError } from './errors.js';
import { OPTIONS, type Config } from './option-table.js';

export interface AisPerfModel {
  readonly backend: string;
  readonly system: string;
  readonly model: string;
  readonly worker_type: string;
  readonly tp?: number;
  readonly moe_tp_size?: number;
  readonly moe_ep_size?: number;
  readonly attention_dp?: number;
  readonly [key: string]: unknown;
}

/** The flat flags that make up the identity, each with its key in the mapping. */
const FLAT_KEYS = {
  aisBackend: 'backend',
  aisSystem: 'system',
  aisBackendVersion: 'backend_version',
  aisTpSize: 'tp',
  aisModelPath: 'model',
  aisMoeTpSize: 'moe_tp_size',
  aisMoeEpSize: 'moe_ep_size',
  aisAttentionDpSize: 'attention_dp',
  aisNextn: 'nextn',
} as const satisfies Partial<Record<keyof Config, string>>;

const REQUIRED = ['backend', 'system', 'model', 'worker_type'] as const;
const SIZES = ['tp', 'moe_tp_size', 'moe_ep_size', 'attention_dp'] as const;
const PERF_CONFIG_FLAG = '--ais-perf-config';

/** The required flat flags left unset; none when the config is authored with --ais-perf-config. */
export function missingAisIdentityFlags(config: Config): string[] {
  if (config.aisPerfConfig !== undefined) return [];
  const required = { '--ais-backend': config.aisBackend, '--ais-system': config.aisSystem, '--ais-model-path': config.aisModelPath };
  return Object.entries(required).filter(([, value]) => value === undefined).map(([flag]) => flag);
}

/** Builds and checks the perf model mapping; a ConfigError names what is wrong. */
export function aisPerfModel(config: Config, env: Readonly<Record<string, string | undefined>>): AisPerfModel {
  refuseRetiredEnv(env);
  const flat = Object.entries(FLAT_KEYS)
    .map(([field, key]) => [key, config[field as keyof typeof FLAT_KEYS]] as const)
    .filter(([, value]) => value !== undefined);
  let mapping: Record<string, unknown>;
  if (config.aisPerfConfig !== undefined) {
    if (flat.length > 0) throw new ConfigError(`${PERF_CONFIG_FLAG} cannot be combined with flat --ais-* / --aic-* identity flags`);
    mapping = readPerfConfig(config.aisPerfConfig);
  } else {
    mapping = { worker_type: 'aggregated', ...Object.fromEntries(flat) };
  }
  const missing = REQUIRED.filter((key) => typeof mapping[key] !== 'string' || mapping[key] === '');
  if (missing.length > 0) throw new ConfigError(`AIS perf config requires ${missing.join(', ')}`);
  for (const key of SIZES) {
    const size = mapping[key];
    if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 1)) {
      throw new ConfigError(`${PERF_CONFIG_FLAG}: ${key} must be a positive integer, got ${JSON.stringify(size)}`);
    }
  }
  return mapping as unknown as AisPerfModel;
}

/** A renamed variable left in the environment would silently do nothing; say so instead. */
function refuseRetiredEnv(env: Readonly<Record<string, string | undefined>>): void {
  const retired = OPTIONS.flatMap((spec) => (spec.retiredEnv !== undefined && env[spec.retiredEnv] !== undefined ? [spec.retiredEnv] : []));
  if (retired.length > 0) {
    throw new ConfigError(`renamed environment variables are no longer read: ${retired.join(', ')}; use the DYN_AIS_* names`);
  }
}

/** A JSON object written inline, or the path of a JSON/YAML file holding one. */
function readPerfConfig(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = value.trimStart().startsWith('{') ? JSON.parse(value) : yaml.load(readFileSync(value, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${PERF_CONFIG_FLAG}: cannot read AIS perf config '${value}': ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`${PERF_CONFIG_FLAG}: AIS perf config '${value}' must contain an object`);
  }
  return parsed as Record<string, unknown>;
}
