/**
 * The shape of one row of the option table. Every option is pure data: the parser, the help
 * text, the docs and the "not built yet" checks are all derived from these rows.
 */

export type Subcommand = 'frontend' | 'mocker' | 'serve' | 'worker' | 'bench';

export const SUBCOMMANDS: readonly Subcommand[] = ['frontend', 'mocker', 'serve', 'worker', 'bench'];

/**
 * Which subcommands an option belongs to: `frontend`, `mocker` (the simulated engine), `both`
 * (every process), `worker` (every worker: the mocker and `worker openai`) or `bridge` (only
 * `worker openai`) or `bench` (the load generator, a client: it takes only its own). `serve` runs
 * a frontend and mockers and accepts all but the bridge's and the load generator's options.
 */
export type Scope = 'frontend' | 'mocker' | 'both' | 'worker' | 'bridge' | 'bench';

/** The subcommands that accept an option of each scope. */
export const SCOPE_COMMANDS: Readonly<Record<Scope, readonly Subcommand[]>> = {
  frontend: ['frontend', 'serve'],
  mocker: ['mocker', 'serve'],
  both: ['frontend', 'mocker', 'serve', 'worker'],
  worker: ['mocker', 'worker', 'serve'],
  bridge: ['worker'],
  bench: ['bench'],
};

/** Where a resolved value came from. */
export type ValueSource = 'cli' | 'env' | 'default';

export const GROUPS = [
  'HTTP & Networking',
  'Security',
  'HTTP Endpoint Paths',
  'Router',
  'AISimulate Perf Model',
  'Fault Tolerance',
  'Model Discovery',
  'Infrastructure',
  'KServe gRPC',
  'Monitoring & Logging',
  'Tokenizer',
  'Reinforcement Learning',
  'Experimental',
  'Mocker Engine',
  'Bridge Workers',
  'Benchmark',
  'Deprecated',
] as const;

export type Group = (typeof GROUPS)[number];

interface BaseSpec<V> {
  /** camelCase field of `Config`: the flag in camelCase, or for env-only options the env var without `DYN_`. */
  readonly key: string;
  /** Long flag without the leading dashes; absent for environment-only options. */
  readonly flag?: string;
  /**
   * Other long spellings of the flag (e.g. the legacy name of a renamed flag). Any one spelling
   * may be used, but not two of them together: that is refused, since which one wins is a guess.
   */
  readonly flagAliases?: readonly string[];
  /** Single-letter alias without the dash. */
  readonly short?: string;
  readonly env: string;
  /** True when upstream has no such env var and dynamo-ts made one up (marked in help and docs). */
  readonly envIsLocal?: boolean;
  /**
   * Other spellings of the env var, read when `env` is unset: names that published docs got wrong
   * and users copy (upstream's table adds `_ENV` to the path variables).
   */
  readonly envAliases?: readonly string[];
  /**
   * A former name of the env var that is no longer read. Setting it would silently do nothing, so
   * the feature using the option refuses to start while it is set (e.g. `ais-perf-config.ts`).
   */
  readonly retiredEnv?: string;
  readonly group: Group;
  readonly scope: Scope;
  readonly help: string;
  /**
   * False while the feature is not implemented: then only the default value is accepted and any
   * other value fails startup naming the option. Enum options also mark each choice (see EnumSpec).
   */
  readonly built: boolean;
  /** Appended to the "not available yet" message, e.g. a suggestion of what to use instead. */
  readonly notBuiltHint?: string;
  /** Set on deprecated options: they are parsed and validated, then ignored with this warning. */
  readonly deprecated?: string;
  /**
   * Set on options upstream deprecates for removal but still applies: they keep working, and a
   * value given for one logs one line saying what replaces it (e.g. a key of `--router-policy-config`).
   */
  readonly supersededBy?: string;
  readonly default?: V;
  /** Per-subcommand defaults that override `default` (e.g. `serve` runs everything in-process). */
  readonly commandDefaults?: Partial<Record<Subcommand, V>>;
  /** Placeholder shown in help, e.g. `<host>`; derived from the type when absent. */
  readonly metavar?: string;
  /** A credential: its value is redacted wherever config is shown (--dump-config-to, help, logs). */
  readonly secret?: boolean;
  /**
   * For a secret with a flag: where else, besides its variable, it can come from out of sight of
   * `ps`; the warning a flag-given secret gets names it.
   */
  readonly secretElsewhere?: string;
}

export interface NumberSpec extends BaseSpec<number> {
  readonly type: 'int' | 'float';
  readonly min?: number;
  /** Makes `min` exclusive ("greater than"). */
  readonly minExclusive?: boolean;
  readonly max?: number;
}

export interface BoolSpec extends BaseSpec<boolean> {
  readonly type: 'bool';
  /** Absent: unset unless given (`undefined` in `Config`), for an older spelling whose absence matters. */
  readonly default?: boolean;
}

export interface StringSpec extends BaseSpec<string> {
  /** `path` values are file-system paths; `mustExist` paths are checked at parse time. */
  readonly type: 'string' | 'path';
  readonly mustExist?: boolean;
  /** Values matching this need not exist (e.g. a hub repository id where a folder is also accepted). */
  readonly mustExistUnless?: { readonly regex: RegExp; readonly describe: string };
  /** A value constraint beyond non-emptiness, with the phrase used in the error message. */
  readonly pattern?: { readonly regex: RegExp; readonly describe: string };
  /** The flag may stand alone (no value after it), meaning this value. */
  readonly bareValue?: string;
}

export interface EnumSpec extends BaseSpec<string> {
  readonly type: 'enum';
  /** Allowed values in display order, each mapped to whether it is built. */
  readonly choices: Readonly<Record<string, boolean>>;
  /** Values upstream once accepted and has since removed, each with the reason given when one is used. */
  readonly removed?: Readonly<Record<string, string>>;
  /** Legacy spellings of a choice, each read as the choice it names (e.g. `aic` for `ais`). */
  readonly choiceAliases?: Readonly<Record<string, string>>;
}

export interface ListSpec extends BaseSpec<readonly string[]> {
  /** Repeatable flag; from env the items are separated by whitespace or commas. */
  readonly type: 'list';
  readonly default: readonly string[];
}

/**
 * Enum choices that are all built, from a list of names kept elsewhere (e.g. the router modes in
 * protocols/), so that `Config`'s field type is exactly that list's union.
 */
export function allBuilt<K extends string>(names: readonly K[]): Readonly<Record<K, true>> {
  // Object.fromEntries types its keys as string; the entries are exactly `names`.
  return Object.fromEntries(names.map((name) => [name, true])) as Record<K, true>;
}

export type OptionSpec = NumberSpec | BoolSpec | StringSpec | EnumSpec | ListSpec;

export type OptionValue = number | boolean | string | readonly string[] | undefined;

/** The value type an option contributes to `Config`. */
export type ValueOf<S> = S extends { readonly type: 'bool' }
  ? boolean | MissingDefault<S>
  : S extends { readonly type: 'int' | 'float' }
    ? number | MissingDefault<S>
    : S extends { readonly type: 'string' | 'path' }
      ? string | MissingDefault<S>
      : S extends { readonly type: 'enum'; readonly choices: infer C }
        ? (keyof C & string) | MissingDefault<S>
        : S extends { readonly type: 'list' }
          ? readonly string[]
          : never;

type MissingDefault<S> = S extends { readonly default: unknown } ? never : undefined;

/** Options that end up in `Config` (deprecated ones are validated, warned about and dropped). */
export type LiveOption<S> = S extends { readonly deprecated: string } ? never : S;

export function appliesTo(spec: OptionSpec, command: Subcommand): boolean {
  return SCOPE_COMMANDS[spec.scope].includes(command);
}

export function defaultFor(spec: OptionSpec, command: Subcommand): OptionValue {
  const perCommand = spec.commandDefaults?.[command];
  return perCommand !== undefined ? perCommand : spec.default;
}

/** How the option is written on the command line (or its env var, when it has no flag). */
export function displayName(spec: OptionSpec): string {
  return spec.flag !== undefined ? `--${spec.flag}` : spec.env;
}

/** Placeholder for the option's value in help and docs. */
export function metavarOf(spec: OptionSpec): string {
  if (spec.metavar !== undefined) return spec.metavar;
  switch (spec.type) {
    case 'int':
      return '<int>';
    case 'float':
      return '<number>';
    case 'enum':
      return `<${Object.keys(spec.choices).join('|')}>`;
    case 'path':
      return '<path>';
    case 'bool':
      return '<bool>';
    default:
      return '<value>';
  }
}
