// The names every template sees before its context: constants and the global functions the
// reference runtime defines (namespace, raise_exception, range, strftime_now).

import { type CallArgs, isDict, isInteger, JinjaFunction, Namespace, notReproduced, Scope } from './values.js';

function positionalOnly(args: CallArgs): unknown[] {
  if (args.keywords) notReproduced('keyword arguments to a global');
  return args.positional;
}

function namespace(args: CallArgs): Namespace {
  // A call's keyword map is its own, made for this call: with nothing to merge it is the namespace.
  if (args.positional.length === 0 && args.keywords) return new Namespace(args.keywords);
  const entries = new Map<string, unknown>();
  if (args.positional.length > 1) notReproduced('namespace with several positional arguments');
  if (args.positional.length === 1) {
    const source = args.positional[0];
    if (!isDict(source)) return notReproduced('namespace from a non-mapping');
    for (const [key, value] of Object.entries(source)) entries.set(key, value);
  }
  if (args.keywords) for (const [key, value] of args.keywords) entries.set(key, value);
  return new Namespace(entries);
}

function range(args: CallArgs): number[] {
  const values = positionalOnly(args);
  if (values.length < 1 || values.length > 3 || !values.every(isInteger)) return notReproduced('range arguments');
  const [a, b, c] = values as number[];
  const [start, stop, step] = values.length === 1 ? [0, a!, 1] : [a!, b!, c ?? 1];
  if (step === 0) return notReproduced('range step 0');
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

const pad2 = (n: number): string => (n < 10 ? '0' : '') + String(n);

/** The reference's strftime: %Y %m %d %b %B %H %M %% in local time, other codes as written. */
function strftimeNow(args: CallArgs): string {
  const [format] = positionalOnly(args);
  if (typeof format !== 'string') return notReproduced('strftime_now format');
  const now = new Date();
  return format.replace(/%[YmdbBHM%]/g, (code) => {
    switch (code) {
      case '%Y':
        return String(now.getFullYear());
      case '%m':
        return pad2(now.getMonth() + 1);
      case '%d':
        return pad2(now.getDate());
      case '%b':
        return new Intl.DateTimeFormat(undefined, { month: 'short' }).format(now);
      case '%B':
        return new Intl.DateTimeFormat(undefined, { month: 'long' }).format(now);
      case '%H':
        return pad2(now.getHours());
      case '%M':
        return pad2(now.getMinutes());
      default:
        return '%';
    }
  });
}

/** The outermost scope; a render's own scope is its child, so a template's `set` of these names shadows them. */
export const GLOBALS = new Scope(null);
for (const [name, value] of Object.entries({
  false: false,
  true: true,
  none: null,
  False: false,
  True: true,
  None: null,
  namespace: new JinjaFunction(namespace),
  range: new JinjaFunction(range),
  strftime_now: new JinjaFunction(strftimeNow),
  raise_exception: new JinjaFunction(() => notReproduced('raise_exception')),
})) {
  GLOBALS.set(name, value);
}
