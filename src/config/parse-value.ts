import { existsSync } from 'node:fs';
import { ConfigError } from './errors.js';
import type { NumberSpec, OptionSpec, OptionValue } from './option-spec.js';

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);
const INT_RE = /^[+-]?\d+$/;
const FLOAT_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parses a boolean word; undefined when the word is not one of the accepted spellings. */
export function parseBoolWord(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** Splits an env list value: items separated by whitespace or commas. */
export function splitListEnv(raw: string): string[] {
  return raw.split(/[\s,]+/).filter((item) => item !== '');
}

/**
 * Converts one raw string into the option's typed value, or throws a ConfigError that names
 * `origin` (the flag or env var the value came from) and what would have been accepted.
 */
export function parseValue(spec: OptionSpec, raw: string, origin: string): OptionValue {
  const fail = (): never => {
    throw new ConfigError(`${origin} must be ${describeAccepted(spec)}, got ${showRaw(raw)}`);
  };
  switch (spec.type) {
    case 'bool': {
      const value = parseBoolWord(raw);
      return value === undefined ? fail() : value;
    }
    case 'int':
    case 'float': {
      const text = raw.trim();
      const ok = spec.type === 'int' ? INT_RE.test(text) : FLOAT_RE.test(text);
      const value = Number(text);
      if (!ok || !Number.isFinite(value) || (spec.type === 'int' && !Number.isSafeInteger(value))) fail();
      if (!inRange(spec, value)) fail();
      return value;
    }
    case 'enum':
      if (spec.removed !== undefined && Object.hasOwn(spec.removed, raw)) {
        throw new ConfigError(`${origin} ${raw} is no longer available: ${spec.removed[raw]}`);
      }
      if (spec.choiceAliases !== undefined && Object.hasOwn(spec.choiceAliases, raw)) return spec.choiceAliases[raw];
      return Object.hasOwn(spec.choices, raw) ? raw : fail();
    case 'list':
      return splitListEnv(raw);
    case 'string':
    case 'path':
      if (raw === '') fail();
      if (spec.pattern !== undefined && !spec.pattern.regex.test(raw)) fail();
      if (spec.mustExist === true && !existsSync(raw) && spec.mustExistUnless?.regex.test(raw) !== true) fail();
      return raw;
  }
}

/** The phrase after "must be" in error messages; also used by help and docs for ranges. */
export function describeAccepted(spec: OptionSpec): string {
  switch (spec.type) {
    case 'bool':
      return 'a boolean (1/true/yes/on or 0/false/no/off)';
    case 'int':
      return `an integer${describeRange(spec)}`;
    case 'float':
      return `a number${describeRange(spec)}`;
    case 'enum':
      return `one of ${Object.keys(spec.choices).join(', ')}`;
    case 'list':
      return 'a list of values separated by spaces or commas';
    case 'string':
    case 'path':
      if (spec.pattern !== undefined) return spec.pattern.describe;
      if (spec.mustExist === true) return `an existing file or directory${spec.mustExistUnless ? ` or ${spec.mustExistUnless.describe}` : ''}`;
      return spec.type === 'path' ? 'a non-empty path' : 'a non-empty string';
  }
}

function describeRange(spec: NumberSpec): string {
  const { min, max, minExclusive } = spec;
  if (min !== undefined && max !== undefined && minExclusive !== true) return ` between ${min} and ${max}`;
  const parts: string[] = [];
  if (min !== undefined) parts.push(`${minExclusive === true ? '>' : '>='} ${min}`);
  if (max !== undefined) parts.push(`<= ${max}`);
  return parts.length === 0 ? '' : ` ${parts.join(' and ')}`;
}

function inRange(spec: NumberSpec, value: number): boolean {
  if (spec.min !== undefined && (spec.minExclusive === true ? value <= spec.min : value < spec.min)) return false;
  return spec.max === undefined || value <= spec.max;
}

function showRaw(raw: string): string {
  return FLOAT_RE.test(raw.trim()) ? raw.trim() : `'${raw}'`;
}
