import { ConfigError } from './errors.js';
import { appliesTo, displayName, metavarOf, SCOPE_COMMANDS, type OptionSpec, type OptionValue, type Subcommand } from './option-spec.js';
import { OPTIONS } from './option-table.js';
import { parseBoolWord, parseValue } from './parse-value.js';
import { closestMatch } from './suggest.js';

/** A value given on the command line, with how it was written (for later error messages). */
export interface CliSetting {
  readonly value: OptionValue;
  readonly written: string;
}

interface FlagHit {
  readonly spec: OptionSpec;
  readonly negated: boolean;
  /** Which long spelling of the flag (its name or one of its aliases) was written. */
  readonly spelling: string;
}

const byLongName = new Map<string, FlagHit>();
const byShortName = new Map<string, OptionSpec>();
for (const spec of OPTIONS) {
  if (spec.flag === undefined) continue;
  for (const spelling of [spec.flag, ...(spec.flagAliases ?? [])]) {
    byLongName.set(spelling, { spec, negated: false, spelling });
    if (spec.type === 'bool') byLongName.set(`no-${spelling}`, { spec, negated: true, spelling });
  }
  if (spec.short !== undefined) byShortName.set(spec.short, spec);
}

/** True for tokens that look like an option rather than a value (negative numbers are values). */
function isOptionToken(token: string): boolean {
  return token.startsWith('-') && token.length > 1 && !/^-[\d.]/.test(token);
}

/**
 * Reads the options after the subcommand. Repeated scalar options keep the last value; list
 * options collect every occurrence.
 */
export function scanArgs(command: Subcommand, args: readonly string[]): Map<OptionSpec, CliSetting> {
  const settings = new Map<OptionSpec, CliSetting>();
  const spellings = new Map<OptionSpec, string>();
  for (let i = 0; i < args.length; i++) {
    const token = args[i]!;
    if (!isOptionToken(token)) throw new ConfigError(`unexpected argument '${token}' for 'dynamo-ts ${command}'`);
    if (token === '--') {
      if (i + 1 < args.length) throw new ConfigError(`unexpected argument '${args[i + 1]}' for 'dynamo-ts ${command}'`);
      break;
    }
    const eq = token.indexOf('=');
    const name = eq === -1 ? token : token.slice(0, eq);
    const inline = eq === -1 ? undefined : token.slice(eq + 1);
    const hit = lookup(name);
    if (hit === undefined) throw unknownOption(name);
    const { spec, negated } = hit;
    if (!appliesTo(spec, command)) {
      const where = SCOPE_COMMANDS[spec.scope].map((c) => `'dynamo-ts ${c}'`).join(' and ');
      throw new ConfigError(`${name} is a '${spec.scope}' option; it applies to ${where}, not 'dynamo-ts ${command}'`);
    }
    noMixedSpellings(spellings, hit);
    if (spec.type === 'bool') {
      settings.set(spec, boolSetting(spec, name, negated, inline));
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      const next = args[i + 1];
      const bare = spec.type === 'string' ? spec.bareValue : undefined;
      if (bare !== undefined && (next === undefined || isOptionToken(next))) raw = bare;
      else if (next === undefined || next.startsWith('--')) throw new ConfigError(`${name} requires a value ${metavarOf(spec)}`);
      else {
        raw = next;
        i++;
      }
    }
    const flagName = displayName(spec);
    if (spec.type === 'list') {
      const previous = settings.get(spec)?.value as readonly string[] | undefined;
      if (raw.trim() === '') throw new ConfigError(`${flagName} must be a non-empty value, got ''`);
      const items = [...(previous ?? []), raw];
      settings.set(spec, { value: items, written: `${flagName} ${items.join(',')}` });
    } else {
      settings.set(spec, { value: parseValue(spec, raw, flagName), written: `${flagName} ${raw}` });
    }
  }
  return settings;
}

function lookup(name: string): FlagHit | undefined {
  if (name.startsWith('--')) return byLongName.get(name.slice(2));
  const spec = byShortName.get(name.slice(1));
  return spec === undefined ? undefined : { spec, negated: false, spelling: spec.flag! };
}

/** One option written under two of its long spellings (e.g. a renamed flag and its legacy name) is refused. */
function noMixedSpellings(spellings: Map<OptionSpec, string>, { spec, spelling }: FlagHit): void {
  const earlier = spellings.get(spec);
  if (earlier !== undefined && earlier !== spelling) {
    throw new ConfigError(`--${earlier} and --${spelling}: new and legacy spellings cannot be combined`);
  }
  spellings.set(spec, spelling);
}

function boolSetting(spec: OptionSpec, name: string, negated: boolean, inline: string | undefined): CliSetting {
  if (inline === undefined) return { value: !negated, written: name };
  if (negated) throw new ConfigError(`${name} does not take a value`);
  const value = parseBoolWord(inline);
  if (value === undefined) {
    throw new ConfigError(`${name} must be a boolean (1/true/yes/on or 0/false/no/off), got '${inline}'`);
  }
  return { value, written: value ? `--${spec.flag}` : `--no-${spec.flag}` };
}

function unknownOption(name: string): ConfigError {
  const suggestion = name.startsWith('--') ? closestMatch(name.slice(2), byLongName.keys()) : undefined;
  const hint = suggestion === undefined ? '' : ` (did you mean '--${suggestion}'?)`;
  return new ConfigError(`unknown option '${name}'${hint}`);
}
