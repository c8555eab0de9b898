// `value | name` and `value | name(args)`: the reference runtime's filters, by name. The bare
// and the called form of one name differ there (`join` vs `join(", ")`, `indent` vs
// `indent(2)`), so each form has its own registry.

import { dictItems, replaceText, titleCase } from './members.js';
import { TESTS } from './tests.js';
import {
  type CallArgs,
  compareValues,
  isDict,
  isInteger,
  type JsonOptions,
  Namespace,
  NO_JSON_OPTIONS,
  notReproduced,
  own,
  toJson,
  toText,
  truthy,
} from './values.js';

export type BareFilter = (value: unknown) => unknown;
export type CallFilter = (value: unknown, args: CallArgs) => unknown;

function nonEmpty(items: unknown[], at: number): unknown {
  if (items.length === 0) return notReproduced('first/last of an empty list');
  return items[at < 0 ? items.length - 1 : at];
}

/** The values of a list joined as the reference does: primitives only. */
function joinable(items: unknown[]): unknown[] {
  for (const item of items) if (typeof item === 'object' && item !== null) notReproduced('join of containers');
  return items;
}

function onString(fn: (s: string) => unknown): BareFilter {
  return (v) => (typeof v === 'string' ? fn(v) : notReproduced('string filter'));
}

function uniqueItems(items: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    if (typeof item === 'object' && item !== null) notReproduced('unique of containers');
    if (seen.has(item)) return false;
    seen.add(item);
    return true;
  });
}

function indentLines(text: string, width: number, first: boolean, blank: boolean): string {
  const pad = ' '.repeat(width);
  return text
    .split('\n')
    .map((line, i) => ((i === 0 && !first) || (line.length === 0 && !blank) ? line : pad + line))
    .join('\n');
}

function length(v: unknown): number {
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  if (isDict(v)) return Object.keys(v).length;
  return notReproduced('length');
}

function toInt(v: unknown): number {
  if (typeof v === 'string') {
    const n = parseInt(v, 10);
    return Number.isNaN(n) ? 0 : n;
  }
  if (typeof v === 'number') return Math.floor(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return notReproduced('int');
}

function toStringFilter(v: unknown): string {
  if (Array.isArray(v)) return toJson(v, NO_JSON_OPTIONS, 0, false);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return toText(v);
  return notReproduced('string filter');
}

export const BARE_FILTERS = new Map<string, BareFilter>([
  ['safe', (v) => v],
  ['tojson', (v) => toJson(v, NO_JSON_OPTIONS, 0, true)],
  ['list', (v) => (Array.isArray(v) ? v : notReproduced('list'))],
  ['first', (v) => (Array.isArray(v) ? nonEmpty(v, 0) : notReproduced('first'))],
  ['last', (v) => (Array.isArray(v) ? nonEmpty(v, -1) : notReproduced('last'))],
  ['length', length],
  ['reverse', (v) => (Array.isArray(v) ? v.slice().reverse() : notReproduced('reverse'))],
  ['sort', (v) => (Array.isArray(v) ? v.slice().sort((a, b) => compareValues(a, b, false)) : notReproduced('sort'))],
  ['join', (v) => (Array.isArray(v) ? joinable(v).join('') : typeof v === 'string' ? v : notReproduced('join'))],
  ['unique', (v) => (Array.isArray(v) ? uniqueItems(v) : notReproduced('unique'))],
  ['string', toStringFilter],
  ['upper', onString((s) => s.toUpperCase())],
  ['lower', onString((s) => s.toLowerCase())],
  ['title', onString(titleCase)],
  ['capitalize', onString((s) => s.charAt(0).toUpperCase() + s.slice(1))],
  ['trim', onString((s) => s.trim())],
  ['indent', onString((s) => indentLines(s, 4, false, false))],
  ['int', toInt],
  ['abs', (v) => (typeof v === 'number' ? Math.abs(v) : notReproduced('abs'))],
  ['bool', (v) => (typeof v === 'boolean' ? v : notReproduced('bool'))],
  ['items', (v) => (isDict(v) ? dictItems(v) : notReproduced('items'))],
  ['keys', (v) => (isDict(v) ? Object.keys(v) : notReproduced('keys'))],
  ['values', (v) => (isDict(v) ? Object.values(v) : notReproduced('values'))],
]);

/** Argument `index`, else keyword `name`, else the default (a passed undefined counts as passed). */
function option(args: CallArgs, index: number, name: string | null, fallback: unknown): unknown {
  if (args.positional.length > index) return args.positional[index];
  if (name !== null && args.keywords?.has(name)) return args.keywords.get(name);
  return fallback;
}

function flag(args: CallArgs, index: number, name: string): boolean {
  const value = option(args, index, name, false);
  return typeof value === 'boolean' ? value : notReproduced(`${name} must be a boolean`);
}

function jsonOptions(args: CallArgs): JsonOptions {
  const kw = (name: string, fallback: unknown): unknown => (args.keywords?.has(name) ? args.keywords.get(name) : fallback);
  const indent = kw('indent', null);
  const ensureAscii = kw('ensure_ascii', false);
  const sortKeys = kw('sort_keys', false);
  const separators = kw('separators', null);
  if ((indent !== null && !isInteger(indent)) || typeof ensureAscii !== 'boolean' || typeof sortKeys !== 'boolean') {
    return notReproduced('tojson options');
  }
  if (separators !== null) {
    if (!Array.isArray(separators) || separators.length !== 2) return notReproduced('tojson separators');
    if (typeof separators[0] !== 'string' || typeof separators[1] !== 'string') return notReproduced('tojson separators');
  }
  return { indent, ensureAscii, sortKeys, separators: separators as [string, string] | null };
}

/** `attribute.path` for `map`: mappings by key, lists by integer index. */
function attributePath(item: unknown, path: string): unknown {
  let value = item;
  for (const part of path.split('.')) {
    if (isDict(value) || value instanceof Namespace) {
      value = isDict(value) ? (own(value, part) ? value[part] : undefined) : value.entries.get(part);
    } else if (Array.isArray(value)) {
      const index = parseInt(part, 10);
      if (Number.isNaN(index) || index < 0 || index >= value.length) return undefined;
      value = value[index];
    } else {
      return undefined;
    }
  }
  return value;
}

function attributeOf(item: unknown, name: string): { found: boolean; value: unknown } {
  if (isDict(item)) return own(item, name) ? { found: true, value: item[name] } : { found: false, value: undefined };
  if (item instanceof Namespace) return { found: item.entries.has(name), value: item.entries.get(name) };
  return notReproduced('selectattr of a non-mapping');
}

function selectAttr(select: boolean): CallFilter {
  return (v, args) => {
    if (!Array.isArray(v)) return notReproduced('selectattr of a non-list');
    const [attr, testName, expected] = args.positional as [string, string | undefined, unknown];
    const test = testName === undefined ? (x: unknown) => truthy(x) : TESTS.get(testName);
    if (!test) return notReproduced('unknown test');
    for (const item of v) if (!isDict(item) && !(item instanceof Namespace)) notReproduced('selectattr items');
    return v.filter((item) => {
      const { found, value } = attributeOf(item, attr);
      const result = found ? test(value, expected) : false;
      return select ? result : !result;
    });
  };
}

export const CALL_FILTERS = new Map<string, CallFilter>([
  ['tojson', (v, args) => toJson(v, jsonOptions(args), 0, true)],
  [
    'join',
    (v, args) => {
      const items = typeof v === 'string' ? Array.from(v) : Array.isArray(v) ? joinable(v) : notReproduced('join');
      const sep = option(args, 0, 'separator', '');
      return typeof sep === 'string' ? items.join(sep) : notReproduced('join separator');
    },
  ],
  [
    'int',
    (v, args) => {
      if (typeof v === 'string') {
        const n = parseInt(v, 10);
        return Number.isNaN(n) ? option(args, 0, 'default', 0) : n;
      }
      if (typeof v === 'number') return v;
      if (typeof v === 'boolean') return v ? 1 : 0;
      return notReproduced('int');
    },
  ],
  [
    'default',
    (v, args) => {
      const fallback = option(args, 0, null, '');
      const onFalsy = flag(args, 1, 'boolean');
      return v === undefined || (onFalsy && !truthy(v)) ? fallback : v;
    },
  ],
  [
    'sort',
    (v, args) => {
      if (!Array.isArray(v)) return notReproduced('sort');
      const reverse = flag(args, 0, 'reverse');
      const caseSensitive = flag(args, 1, 'case_sensitive');
      const attribute = option(args, 2, 'attribute', null);
      if (attribute !== null && typeof attribute !== 'string' && !isInteger(attribute)) return notReproduced('sort attribute');
      const key = (item: unknown): unknown => (attribute === null ? item : attributePath(item, String(attribute)));
      return v.slice().sort((a, b) => {
        const order = compareValues(key(a), key(b), caseSensitive);
        return reverse ? -order : order;
      });
    },
  ],
  ['selectattr', selectAttr(true)],
  ['rejectattr', selectAttr(false)],
  [
    'map',
    (v, args) => {
      if (!Array.isArray(v)) return notReproduced('map');
      const attribute = args.keywords?.get('attribute');
      if (typeof attribute !== 'string') return notReproduced('map without attribute');
      const fallback = args.keywords?.get('default');
      return v.map((item) => {
        if (!isDict(item) && !(item instanceof Namespace)) notReproduced('map items');
        const value = attributePath(item, attribute);
        return value === undefined ? fallback : value;
      });
    },
  ],
  [
    'indent',
    (v, args) => {
      if (typeof v !== 'string') return notReproduced('indent');
      const width = option(args, 0, 'width', 4);
      if (!isInteger(width)) return notReproduced('indent width');
      return indentLines(v, width, Boolean(option(args, 1, 'first', false)), Boolean(option(args, 2, 'blank', false)));
    },
  ],
  ['replace', (v, args) => (typeof v === 'string' ? replaceText(v, args) : notReproduced('replace'))],
]);

/** Names of call-form filters that only accept literal string arguments in the reference. */
export const LITERAL_ARGUMENT_FILTERS = new Set(['selectattr', 'rejectattr']);

