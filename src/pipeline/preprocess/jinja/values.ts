// Template values as plain JavaScript values, with the semantics @huggingface/jinja gives its
// runtime wrappers: what is true, how a value prints, how it serialises to JSON, how two compare.
// Whatever the reference would treat in a way not reproduced here throws; the caller then renders
// with the reference, so an error here never changes an answer.

/** `namespace(...)`: the one mutable value a template can create. */
export class Namespace {
  constructor(readonly entries: Map<string, unknown>) {}
}

/** Positional and keyword arguments of one call. */
export interface CallArgs {
  positional: unknown[];
  keywords: Map<string, unknown> | null;
}

/** A macro or a built-in global: called with the caller's scope (macros see it, as in the reference). */
export class JinjaFunction {
  constructor(readonly call: (args: CallArgs, scope: Scope) => unknown) {}
}

/**
 * Variables of one block (render, loop, macro call); a lookup walks outwards as the reference's
 * environments do. A scope's first two variables sit in fields (a loop's are `loop` and its
 * target), later ones in a Map, so most scopes make no Map. A render's root scope reads the
 * render context itself, under what the template sets there, rather than copying its keys.
 */
export class Scope {
  private name1: string | null = null;
  private value1: unknown = undefined;
  private name2: string | null = null;
  private value2: unknown = undefined;
  private vars: Map<string, unknown> | null = null;

  constructor(
    private readonly parent: Scope | null,
    /** The render context (root scope only): its own keys are variables, below the ones set here. */
    private readonly context: Record<string, unknown> | null = null,
  ) {}

  get(name: string): unknown {
    for (let scope: Scope | null = this; scope !== null; scope = scope.parent) {
      if (scope.name1 === name) return scope.value1;
      if (scope.name2 === name) return scope.value2;
      const vars = scope.vars;
      if (vars !== null) {
        const value = vars.get(name);
        if (value !== undefined || vars.has(name)) return value;
      }
      const context = scope.context;
      if (context !== null && own(context, name)) return context[name];
    }
    return undefined;
  }

  has(name: string): boolean {
    for (let scope: Scope | null = this; scope !== null; scope = scope.parent) {
      if (scope.name1 === name || scope.name2 === name || scope.vars?.has(name)) return true;
      if (scope.context !== null && own(scope.context, name)) return true;
    }
    return false;
  }

  set(name: string, value: unknown): void {
    if (this.name1 === name || this.name1 === null) {
      this.name1 = name;
      this.value1 = value;
    } else if (this.name2 === name || this.name2 === null) {
      this.name2 = name;
      this.value2 = value;
    } else {
      (this.vars ??= new Map()).set(name, value);
    }
  }
}

/** Raised for anything the fast renderer does not reproduce; the reference renders instead. */
export class NotReproduced extends Error {}

export function notReproduced(what: string): never {
  throw new NotReproduced(what);
}

/** Tuples are arrays marked here: most operations treat them as arrays, a few do not. */
const tuples = new WeakSet<unknown[]>();

export function makeTuple(items: unknown[]): unknown[] {
  tuples.add(items);
  return items;
}

export function isTuple(value: unknown): boolean {
  return Array.isArray(value) && tuples.has(value);
}

/** A mapping: a plain object from the request, a literal, or a loop variable. */
export function isDict(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Namespace) &&
    !(value instanceof JinjaFunction)
  );
}

export function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

export function own(dict: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(dict, key);
}

export function truthy(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return Boolean(value);
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Namespace || value instanceof JinjaFunction) return true;
  for (const key in value) if (own(value as Record<string, unknown>, key)) return true;
  return false;
}

/** The text `{{ value }}` writes (never called for none or undefined, which write nothing). */
export function toText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return toJson(value, NO_JSON_OPTIONS, 0, false);
  }
}

export interface JsonOptions {
  indent: number | null;
  ensureAscii: boolean;
  sortKeys: boolean;
  separators: [string, string] | null;
}

export const NO_JSON_OPTIONS: JsonOptions = { indent: null, ensureAscii: false, sortKeys: false, separators: null };

const NON_ASCII = /[\x7f-\uffff]/g;

function asciiSafe(text: string): string {
  return text.replace(NON_ASCII, (ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** `tojson` and the printed form of lists and mappings (undefined prints as `undefined` there). */
export function toJson(value: unknown, opts: JsonOptions, depth: number, undefinedAsNull: boolean): string {
  if (value === null) return 'null';
  if (value === undefined) return undefinedAsNull ? 'null' : 'undefined';
  switch (typeof value) {
    case 'number':
    case 'boolean':
      return JSON.stringify(value);
    case 'string':
      return opts.ensureAscii ? asciiSafe(JSON.stringify(value)) : JSON.stringify(value);
  }
  if (isTuple(value) || value instanceof JinjaFunction || typeof value === 'function') notReproduced('tojson');
  const [itemSep, keySep] = opts.separators ?? (opts.indent ? [',', ': '] : [', ', ': ']);
  const unit = opts.indent ? ' '.repeat(opts.indent) : '';
  const outer = '\n' + unit.repeat(depth);
  const inner = outer + unit;
  if (Array.isArray(value)) {
    const items = value.map((item) => toJson(item, opts, depth + 1, undefinedAsNull));
    return opts.indent && items.length > 0
      ? `[${inner}${items.join(itemSep + inner)}${outer}]`
      : `[${items.join(itemSep)}]`;
  }
  let entries: [string, unknown][] =
    value instanceof Namespace ? [...value.entries] : Object.entries(value as Record<string, unknown>);
  if (opts.sortKeys) entries = entries.sort(([a], [b]) => a.localeCompare(b));
  const fields = entries.map(([key, item]) => {
    const name = opts.ensureAscii ? asciiSafe(JSON.stringify(key)) : JSON.stringify(key);
    const field = name + keySep + toJson(item, opts, depth + 1, undefinedAsNull);
    return opts.indent ? inner + field : field;
  });
  return opts.indent && fields.length > 0 ? `{${fields.join(itemSep)}${outer}}` : `{${fields.join(itemSep)}}`;
}

/** Ordering for `sort`: numbers and booleans by value, strings (case-folded unless asked), else an error. */
export function compareValues(a: unknown, b: unknown, caseSensitive: boolean): number {
  if (a === null || b === null) {
    if (a === null && b === null) return 0;
    return notReproduced('compare with none');
  }
  if (a === undefined || b === undefined) {
    if (a === undefined && b === undefined) return 0;
    return notReproduced('compare with undefined');
  }
  const numericA = typeof a === 'number' || typeof a === 'boolean';
  const numericB = typeof b === 'number' || typeof b === 'boolean';
  if (numericA && numericB) {
    const x = Number(a);
    const y = Number(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a !== 'string' || typeof b !== 'string') return notReproduced('compare');
  const x = caseSensitive ? a : a.toLowerCase();
  const y = caseSensitive ? b : b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
