import { ConfigError } from './errors.js';
import {
  appliesTo, defaultFor, displayName,
  type OptionSpec, type OptionValue, type Subcommand, type ValueSource,
} from './option-spec.js';
import { OPTIONS, type Config, type ConfigSources } from './option-table.js';
import { parseValue } from './parse-value.js';
import type { CliSetting } from './scan-args.js';

export interface ResolvedConfig {
  readonly config: Config;
  readonly sources: ConfigSources;
  /** Deprecated options that were set, and credentials given as flags; the caller logs them. */
  readonly warnings: readonly string[];
}

interface Resolution {
  readonly spec: OptionSpec;
  readonly value: OptionValue;
  readonly source: ValueSource;
  /** How the value was given, e.g. `--router-mode kv` or `DYN_ROUTER_MODE=kv`. */
  readonly written: string;
}

/**
 * Applies the precedence CLI > env > default to every option, then refuses values whose
 * feature is not built yet. Options of the other standalone subcommand keep their defaults and
 * their env vars are not read.
 */
export function resolveConfig(
  command: Subcommand,
  cli: ReadonlyMap<OptionSpec, CliSetting>,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedConfig {
  const config: Record<string, OptionValue> = {};
  const sources: Record<string, ValueSource> = {};
  const warnings: string[] = [];
  const resolutions: Resolution[] = [];
  for (const spec of OPTIONS) {
    const resolution = appliesTo(spec, command) ? resolveOne(spec, command, cli, env) : fromDefault(spec, command);
    if (spec.deprecated !== undefined) {
      if (resolution.source !== 'default') warnings.push(`${originName(resolution)} ${spec.deprecated}`);
      continue;
    }
    if (spec.secret === true && resolution.source === 'cli') warnings.push(secretOnCommandLine(spec));
    if (spec.supersededBy !== undefined && resolution.source !== 'default') warnings.push(supersededWarning(resolution, spec.supersededBy));
    config[spec.key] = resolution.value;
    sources[spec.key] = resolution.source;
    if (appliesTo(spec, command)) resolutions.push(resolution);
  }
  // Report what the user typed before complaining about a default they never chose.
  const explicitFirst = [...resolutions.filter((r) => r.source !== 'default'), ...resolutions.filter((r) => r.source === 'default')];
  for (const resolution of explicitFirst) {
    const problem = notBuiltProblem(resolution, command);
    if (problem !== undefined) throw new ConfigError(problem);
  }
  return {
    config: Object.freeze(config) as unknown as Config,
    sources: Object.freeze(sources) as unknown as ConfigSources,
    warnings,
  };
}

function resolveOne(
  spec: OptionSpec,
  command: Subcommand,
  cli: ReadonlyMap<OptionSpec, CliSetting>,
  env: Readonly<Record<string, string | undefined>>,
): Resolution {
  const fromCli = cli.get(spec);
  if (fromCli !== undefined) return { spec, value: fromCli.value, source: 'cli', written: fromCli.written };
  for (const name of [spec.env, ...(spec.envAliases ?? [])]) {
    const raw = env[name];
    // An empty variable counts as unset, the usual shell convention for `VAR=`.
    if (raw !== undefined && raw !== '') {
      return { spec, value: parseValue(spec, raw, name), source: 'env', written: `${name}=${raw}` };
    }
  }
  return fromDefault(spec, command);
}

function fromDefault(spec: OptionSpec, command: Subcommand): Resolution {
  const value = defaultFor(spec, command);
  const shown = value === undefined ? '' : ` ${String(value)}`;
  return { spec, value, source: 'default', written: `${displayName(spec)}${shown} (the default for 'dynamo-ts ${command}')` };
}

/** A flag's value is in the process's command line, which every user of the host can read. */
function secretOnCommandLine(spec: OptionSpec): string {
  const instead = spec.secretElsewhere === undefined ? spec.env : `${spec.env} or ${spec.secretElsewhere}`;
  return `${displayName(spec)} on the command line can be read by every user of this host (ps, /proc/<pid>/cmdline); set ${instead} instead`;
}

/** Upstream removes these in v1.7; until then the value still applies. */
function supersededWarning(resolution: Resolution, replacement: string): string {
  return `${originName(resolution)} is deprecated and will be removed (upstream v1.7); it still applies for now. Use ${replacement} instead`;
}

function originName(resolution: Resolution): string {
  // The variable actually set, which may be an alias.
  return resolution.source === 'env' ? resolution.written.slice(0, resolution.written.indexOf('=')) : displayName(resolution.spec);
}

function notBuiltProblem({ spec, value, written }: Resolution, command: Subcommand): string | undefined {
  const hint = spec.notBuiltHint === undefined ? '' : `; ${spec.notBuiltHint}`;
  if (spec.type === 'enum' && typeof value === 'string' && spec.choices[value] === false) {
    const available = Object.keys(spec.choices).filter((choice) => spec.choices[choice] === true);
    return `${written} is not supported yet in this build (available: ${available.join(', ')})${hint}`;
  }
  if (!spec.built && !sameValue(value, defaultFor(spec, command))) {
    return `${written} is not available yet in this build${hint}`;
  }
  return undefined;
}

function sameValue(a: OptionValue, b: OptionValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => item === b[i]);
  return a === b;
}
