// `value.name`, `value[index]` and `value.method(...)`: attribute lookup and the Python-style
// methods of strings and mappings, as the reference runtime provides them.

import {
  type CallArgs,
  isDict,
  isInteger,
  JinjaFunction,
  Namespace,
  notReproduced,
  own,
  type Scope,
} from './values.js';

type Method<T> = (self: T, args: CallArgs) => unknown;

function noKeywords(args: CallArgs): unknown[] {
  if (args.keywords) notReproduced('keyword arguments to a method');
  return args.positional;
}

function affix(test: (self: string, part: string) => boolean): Method<string> {
  return (self, args) => {
    const [pattern] = noKeywords(args);
    if (typeof pattern === 'string') return test(self, pattern);
    if (!Array.isArray(pattern)) return notReproduced('affix argument');
    for (const part of pattern) {
      if (typeof part !== 'string') notReproduced('affix tuple');
      if (test(self, part)) return true;
    }
    return false;
  };
}

/** Python's `str.split(sep=None, maxsplit=-1)`, as the reference implements it. */
function split(self: string, args: CallArgs): string[] {
  const positional = noKeywords(args);
  const sep = positional.length > 0 ? positional[0] : null;
  const maxsplit = positional.length > 1 ? positional[1] : -1;
  if ((sep !== null && typeof sep !== 'string') || !isInteger(maxsplit)) notReproduced('split arguments');
  if (sep === null) {
    const text = self.trimStart();
    const parts: string[] = [];
    for (const match of text.matchAll(/\S+/g)) {
      if (maxsplit !== -1 && parts.length >= maxsplit) {
        parts.push(match[0] + text.slice(match.index + match[0].length));
        break;
      }
      parts.push(match[0]);
    }
    return parts;
  }
  if (sep === '') notReproduced('empty separator');
  const parts = self.split(sep);
  if (maxsplit !== -1 && parts.length > maxsplit) parts.push(parts.splice(maxsplit).join(sep));
  return parts;
}

const REGEXP_SPECIALS = /[.*+?^${}()|[\]\\]/g;

/** `str.replace(old, new, count=None)`; the count may come by keyword. */
export function replaceText(self: string, args: CallArgs): string {
  const [from, to] = args.positional;
  if (typeof from !== 'string' || typeof to !== 'string') return notReproduced('replace arguments');
  const count = args.positional.length > 2 ? args.positional[2] : (args.keywords?.get('count') ?? null);
  if (count !== null && !isInteger(count)) return notReproduced('replace count');
  if (count === 0) return self;
  let remaining = count === null || count < 0 ? Infinity : count;
  const pattern = from === '' ? /(?=)/gu : new RegExp(from.replace(REGEXP_SPECIALS, '\\$&'), 'gu');
  return self.replaceAll(pattern, (match) => {
    if (remaining <= 0) return match;
    remaining--;
    return to;
  });
}

const STRING_METHODS = new Map<string, Method<string>>([
  ['upper', (s) => s.toUpperCase()],
  ['lower', (s) => s.toLowerCase()],
  ['strip', (s) => s.trim()],
  ['lstrip', (s) => s.trimStart()],
  ['rstrip', (s) => s.trimEnd()],
  ['title', (s) => titleCase(s)],
  ['capitalize', (s) => s.charAt(0).toUpperCase() + s.slice(1)],
  ['startswith', affix((s, p) => s.startsWith(p))],
  ['endswith', affix((s, p) => s.endsWith(p))],
  ['split', split],
  ['replace', replaceText],
]);

export function titleCase(text: string): string {
  return text.replace(/\b\w/g, (ch) => ch.toUpperCase());
}

export function dictItems(dict: Record<string, unknown>): unknown[][] {
  return Object.entries(dict).map(([key, value]) => [key, value]);
}

const DICT_METHODS = new Map<string, Method<Record<string, unknown>>>([
  [
    'get',
    (d, args) => {
      const [key, fallback] = noKeywords(args);
      if (typeof key !== 'string') return notReproduced('get with a non-string key');
      if (own(d, key)) return d[key];
      return args.positional.length > 1 ? fallback : null;
    },
  ],
  ['items', (d) => dictItems(d)],
  ['keys', (d) => Object.keys(d)],
  ['values', (d) => Object.values(d)],
]);

/** `obj.name` / `obj[key]`; undefined where the reference gives Undefined. */
export function member(obj: unknown, key: unknown): unknown {
  if (isDict(obj)) {
    if (typeof key !== 'string') return notReproduced('mapping key');
    if (own(obj, key)) return obj[key];
    const method = DICT_METHODS.get(key);
    return method ? boundMethod(method, obj) : undefined;
  }
  if (obj instanceof Namespace) {
    if (typeof key !== 'string') return notReproduced('namespace key');
    return obj.entries.get(key);
  }
  if (typeof obj === 'string' || Array.isArray(obj)) {
    if (isInteger(key)) return (obj as ArrayLike<unknown> & { at(i: number): unknown }).at(key);
    if (typeof key !== 'string') return notReproduced('sequence key');
    if (key === 'length') return obj.length;
    if (typeof obj !== 'string') return undefined;
    const method = STRING_METHODS.get(key);
    return method ? boundMethod(method, obj) : undefined;
  }
  if (typeof key !== 'string') return notReproduced('attribute key');
  return undefined;
}

function boundMethod<T>(method: Method<T>, self: T): JinjaFunction {
  return new JinjaFunction((args) => method(self, args));
}

/** `obj.name(args)` without building a bound method where a built-in one is called. */
export function callMember(obj: unknown, key: string, args: CallArgs, scope: Scope): unknown {
  const method = typeof obj === 'string' ? STRING_METHODS.get(key) : undefined;
  if (method) return method(obj as string, args);
  const dictMethod = isDict(obj) && !own(obj, key) ? DICT_METHODS.get(key) : undefined;
  if (dictMethod) return dictMethod(obj as Record<string, unknown>, args);
  return callValue(member(obj, key), args, scope);
}

export function callValue(fn: unknown, args: CallArgs, scope: Scope): unknown {
  if (!(fn instanceof JinjaFunction)) return notReproduced('call of a non-function');
  return fn.call(args, scope);
}
