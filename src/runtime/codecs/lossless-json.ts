// JSON with u64 fields (lease ids, block hashes). JSON.parse rounds integers above 2^53, so this
// reader returns integers outside the safe range as bigint; the writer prints bigints as bare numbers.

/** Every integer beyond 2^53 has 16 digits or more. */
const SIXTEEN_DIGITS = /\d{16}/;

/**
 * Parses JSON text; integers that are not safe JS numbers come back as bigint. A text without 16
 * digits in a row holds none: the native JSON.parse reads it (requests of token ids, most records).
 */
export function parseJsonLossless(text: string): unknown {
  if (!SIXTEEN_DIGITS.test(text)) return JSON.parse(text);
  const parser = new LosslessParser(text);
  const value = parser.value();
  parser.end();
  return value;
}

class LosslessParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  end(): void {
    this.skipSpace();
    if (this.pos !== this.text.length) this.fail('unexpected trailing text');
  }

  value(): unknown {
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const [word, val] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return val;
      }
    }
    return this.fail('unexpected token');
  }

  private object(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos++] !== ':') this.fail("expected ':'");
      out[key] = this.value();
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === '}') return out;
      if (next !== ',') this.fail("expected ',' or '}'");
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skipSpace();
      const next = this.text[this.pos++];
      if (next === ']') return out;
      if (next !== ',') this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    // Strings carry no u64s: find the closing quote; JSON.parse handles escapes and refuses control characters.
    let i = this.pos + 1;
    let plain = true;
    for (; i < this.text.length; i++) {
      const ch = this.text.charCodeAt(i);
      if (ch === 0x22) break;
      if (ch === 0x5c) {
        i++;
        plain = false;
      } else if (ch < 0x20) plain = false;
    }
    if (i >= this.text.length) this.fail('unterminated string');
    const start = this.pos;
    this.pos = i + 1;
    return plain ? this.text.slice(start + 1, i) : (JSON.parse(this.text.slice(start, i + 1)) as string);
  }

  private number(): number | bigint {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) return this.fail('bad number');
    this.pos += m[0].length;
    const isInteger = m[2] === undefined && m[3] === undefined;
    if (isInteger) {
      const n = Number(m[0]);
      return Number.isSafeInteger(n) ? n : BigInt(m[0]);
    }
    return Number(m[0]);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && WHITESPACE.has(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private fail(what: string): never {
    throw new SyntaxError(`JSON: ${what} at position ${this.pos}`);
  }
}

const LITERALS: readonly [string, unknown][] = [['true', true], ['false', false], ['null', null]];
const NUMBER = /(-?(?:0|[1-9]\d*))(\.\d+)?([eE][+-]?\d+)?/y;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** A stand-in no JSON string can contain unescaped (a raw control character). */
const BIGINT_MARK = '\u0001u64:';
const BIGINT_MARKED = /"\\u0001u64:(-?\d+)"/g;

/** JSON.stringify, but bigint values are written as bare numbers (u64 / i64 on the wire). */
export function stringifyJsonWithU64(value: unknown): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? BIGINT_MARK + v.toString() : v));
  return text.includes('\\u0001u64:') ? text.replace(BIGINT_MARKED, '$1') : text;
}

/** A u64 field read by parseJsonLossless (number or bigint) as bigint; null when absent or not an integer. */
export function asU64(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value >= 0n ? value : BigInt.asUintN(64, value);
  if (typeof value === 'number' && Number.isInteger(value)) return value >= 0 ? BigInt(value) : BigInt.asUintN(64, BigInt(value));
  return null;
}
