// Seeded hostile inputs for the fuzz suites: the same seed gives the same requests, so a failure
// reproduces by its seed and index.

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** Values of the wrong type (or a hostile value of the right one) for any field. */
export const HOSTILE_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -2147483649,
  2 ** 53 + 1,
  1e308,
  -1e308,
  0.5,
  -0.0001,
  '',
  'x',
  'NaN',
  '-1',
  [],
  [null],
  [1, 'a', {}],
  {},
  { a: 1 },
  { __proto__: { polluted: true } },
];

/** JSON texts that JSON.stringify cannot produce: numbers beyond double range parse to ±Infinity. */
export const HOSTILE_NUMBER_TEXTS: readonly string[] = ['1e400', '-1e400', '123456789012345678901234567890', '-0', '1e-400', '0.1e1'];

/** Nested `depth` levels of arrays or objects around a leaf. */
export function nested(depth: number, leaf: unknown, kind: 'array' | 'object'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** Bytes that are not UTF-8, to splice into a JSON string. */
export const INVALID_UTF8: readonly Buffer[] = [
  Buffer.from([0xff]),
  Buffer.from([0xc3]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
];

/** One hostile request: its body bytes, and the top-level field it targets (for the message check). */
export interface HostileBody {
  kind: string;
  body: Buffer;
  /** The field whose name a 4xx message should carry (undefined when the JSON itself is broken). */
  field?: string;
  contentType?: string;
}

const text = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

/** Replaces the JSON text of one key's value by raw text (for values JSON.stringify cannot write). */
function withRawValue(base: Record<string, unknown>, key: string, raw: string): Buffer {
  const marker = '"__RAW_VALUE_MARKER__"';
  return Buffer.from(JSON.stringify({ ...base, [key]: '__RAW_VALUE_MARKER__' }).replace(marker, raw));
}

/** A path to a string inside `value` (for splicing bytes into), or undefined. */
function someStringPath(rng: Rng, value: unknown, path: (string | number)[] = []): (string | number)[] | undefined {
  if (typeof value === 'string') return path;
  if (Array.isArray(value) && value.length > 0) {
    const i = rng.int(value.length);
    return someStringPath(rng, value[i], [...path, i]);
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return undefined;
    const k = rng.pick(keys);
    return someStringPath(rng, (value as Record<string, unknown>)[k], [...path, k]);
  }
  return undefined;
}

/**
 * A mutation of `base`, a valid body of the route. `fields` are the route's known fields (mutated
 * even when `base` leaves them out).
 */
export function hostileBody(rng: Rng, base: Record<string, unknown>, fields: readonly string[]): HostileBody {
  const keys = [...new Set([...Object.keys(base), ...fields])];
  const key = rng.pick(keys);
  const valid = JSON.stringify(base);
  switch (rng.int(11)) {
    case 0: {
      const cut = valid.slice(0, rng.int(valid.length));
      const broken = rng.pick([cut, `${valid}}`, `${valid} trailing`, valid.replace(':', ''), '{', '[', 'nul', '', "{'a':1}", 'NaN', '{"a":1,}']);
      return { kind: 'malformed-json', body: Buffer.from(broken) };
    }
    case 1:
      return { kind: 'wrong-type', body: text({ ...base, [key]: rng.pick(HOSTILE_VALUES) }), field: key };
    case 2:
      return { kind: 'number-text', body: withRawValue(base, key, rng.pick(HOSTILE_NUMBER_TEXTS)), field: key };
    case 3: {
      const depth = 100 + rng.int(400);
      return { kind: 'deep-nesting', body: text({ ...base, [key]: nested(depth, 1, rng.pick(['array', 'object'] as const)) }), field: key };
    }
    case 4: {
      const copy = structuredClone(base);
      const path = someStringPath(rng, copy);
      const bytes = rng.pick(INVALID_UTF8);
      const marker = '__UTF8_MARKER__';
      if (!path || path.length === 0) return { kind: 'invalid-utf8', body: Buffer.concat([Buffer.from('{"model":"'), bytes, Buffer.from('"}')]) };
      let at: any = copy;
      for (const p of path.slice(0, -1)) at = at[p];
      at[path.at(-1)!] = marker;
      const [before, after] = JSON.stringify(copy).split(marker) as [string, string];
      return { kind: 'invalid-utf8', body: Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]) };
    }
    case 5: {
      const proto = rng.pick(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString']);
      const json = valid.slice(0, -1) + `${valid.length > 2 ? ',' : ''}"${proto}":{"polluted":true,"prototype":{"x":1}}}`;
      const inner = JSON.stringify({ ...base, [key]: { [proto]: { polluted: true } } });
      return rng.int(2) === 0 ? { kind: 'prototype-key', body: Buffer.from(json) } : { kind: 'prototype-key', body: Buffer.from(inner), field: key };
    }
    case 6: {
      const size = rng.pick([10_000, 100_000, 400_000]);
      return { kind: 'huge-string', body: text({ ...base, [key]: 'A'.repeat(size) }), field: key };
    }
    case 7: {
      const copy = { ...base };
      delete copy[key];
      return { kind: 'missing-field', body: text(copy), field: key };
    }
    case 8:
      return { kind: 'not-an-object', body: text(rng.pick([[base], 'text', 42, null, true])) };
    case 9:
      return { kind: 'wrong-content-type', body: Buffer.from(valid), contentType: rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) };
    default:
      return { kind: 'huge-number', body: text({ ...base, [key]: rng.pick([1e15, -1e15, 2 ** 31, -(2 ** 31), 1e-300, Number.MAX_SAFE_INTEGER]) }), field: key };
  }
}

/** Counts per kind and per status, printed at the end of a suite. */
export class FuzzTally {
  sent = 0;
  readonly byStatus = new Map<string, number>();
  readonly byKind = new Map<string, number>();
  /** 4xx answers to a field mutation whose message did not name the field. */
  readonly unnamed: string[] = [];

  record(kind: string, status: string | number): void {
    this.sent++;
    this.byStatus.set(String(status), (this.byStatus.get(String(status)) ?? 0) + 1);
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
  }

  summary(title: string): string {
    const fmt = (m: Map<string, number>) => [...m].sort().map(([k, v]) => `${k}=${v}`).join(' ');
    return `${title}: sent=${this.sent} | by status: ${fmt(this.byStatus)} | by kind: ${fmt(this.byKind)}`;
  }
}
