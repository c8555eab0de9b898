import { defaultFor, metavarOf, type OptionSpec, type OptionValue, type Subcommand } from './option-spec.js';

/** Text shared by --help and docs/configuration.md, so both describe an option the same way. */

/** The ways to write the option: `--x <int>`, `--x, --no-x`, `-i, --interactive, --no-interactive`, or `ENV=<int>`. */
export function usageForms(spec: OptionSpec): string {
  if (spec.flag === undefined) return `${spec.env}=${metavarOf(spec)}`;
  const short = spec.short === undefined ? '' : `-${spec.short}, `;
  const aliases = (spec.flagAliases ?? []).map((alias) => (spec.type === 'bool' ? `, --${alias}, --no-${alias}` : `, --${alias}`)).join('');
  if (spec.type === 'bool') return `${short}--${spec.flag}, --no-${spec.flag}${aliases}`;
  const repeat = spec.type === 'list' ? ' (repeatable)' : '';
  return `${short}--${spec.flag}${aliases} ${metavarOf(spec)}${repeat}`;
}

export function formatValue(value: OptionValue): string {
  if (value === undefined) return 'unset';
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : value.join(',');
  return String(value);
}

/** The default, with per-subcommand overrides spelled out (e.g. `etcd (serve: mem)`). */
export function formatDefault(spec: OptionSpec, command?: Subcommand): string {
  if (command !== undefined) return formatValue(defaultFor(spec, command));
  const overrides = Object.entries(spec.commandDefaults ?? {}).map(([name, value]) => `${name}: ${formatValue(value)}`);
  const base = formatValue(spec.default);
  return overrides.length === 0 ? base : `${base} (${overrides.join(', ')})`;
}

/** Empty for fully built options; otherwise what is not available yet. */
export function statusNote(spec: OptionSpec): string {
  if (spec.deprecated !== undefined) return 'deprecated, ignored';
  if (spec.supersededBy !== undefined) return `deprecated (still applied): use ${spec.supersededBy}`;
  if (!spec.built) return 'not available yet';
  if (spec.type === 'enum') {
    const missing = Object.keys(spec.choices).filter((choice) => spec.choices[choice] === false);
    if (missing.length > 0) return `not available yet: ${missing.join(', ')}`;
  }
  return '';
}

export function envNote(spec: OptionSpec): string {
  const aliases = spec.envAliases?.length ? ` (also ${spec.envAliases.join(', ')})` : '';
  const retired = spec.retiredEnv === undefined ? '' : ` (${spec.retiredEnv} retired)`;
  return spec.envIsLocal === true ? `${spec.env} (dynamo-ts only)` : `${spec.env}${aliases}${retired}`;
}
