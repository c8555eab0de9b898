// Gemma 4's argument literals, read into JSON text as upstream's reader does: bare keys, strings
// between `<|"|>` delimiters, numbers, true/false, null (also `none`, `nil`, any case), nested
// objects and arrays. `key:` with nothing after it is the empty string; a string whose closing
// delimiter never came runs to the end. Anything else malformed makes the whole arguments unreadable.

const QUOTE = '<|"|>';
// Sticky: each matches at the reader's position.
const KEY = /[A-Za-z0-9_.-]+/y;
const NUMBER = /-?\d+(?:\.\d*)?/y;
const KEYWORDS: readonly [RegExp, string][] = [
  [/true(?![A-Za-z0-9_])/iy, 'true'],
  [/false(?![A-Za-z0-9_])/iy, 'false'],
  [/(?:null|none|nil)(?![A-Za-z0-9_])/iy, 'null'],
];

class Unreadable extends Error {}

class LiteralReader {
  private at = 0;

  constructor(private readonly text: string) {}

  /** The arguments: an object's members without its braces. */
  arguments(): string {
    const object = this.members();
    this.skipSpace();
    if (this.at < this.text.length) throw new Unreadable();
    return object;
  }

  private members(): string {
    // Members by key, later ones replacing earlier ones in place.
    const members = new Map<string, string>();
    this.skipSpace();
    if (this.at >= this.text.length || this.peek() === '}') return '{}';
    for (;;) {
      this.skipSpace();
      const key = this.match(KEY);
      if (key === undefined) throw new Unreadable();
      this.at += key.length;
      this.skipSpace();
      if (!this.take(':')) throw new Unreadable();
      this.skipSpace();
      const next = this.peek();
      members.set(key, next === undefined || next === ',' || next === '}' ? '""' : this.value());
      this.skipSpace();
      if (!this.take(',')) break;
    }
    return `{${[...members].map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
  }

  private value(): string {
    this.skipSpace();
    if (this.text.startsWith(QUOTE, this.at)) return this.string();
    if (this.take('{')) {
      const object = this.members();
      this.skipSpace();
      if (!this.take('}')) throw new Unreadable();
      return object;
    }
    if (this.take('[')) return this.array();
    for (const [pattern, json] of KEYWORDS) {
      const word = this.match(pattern);
      if (word !== undefined) {
        this.at += word.length;
        return json;
      }
    }
    return this.number();
  }

  private string(): string {
    const start = this.at + QUOTE.length;
    const end = this.text.indexOf(QUOTE, start);
    this.at = end < 0 ? this.text.length : end + QUOTE.length;
    return JSON.stringify(this.text.slice(start, end < 0 ? undefined : end));
  }

  private array(): string {
    const items: string[] = [];
    this.skipSpace();
    if (this.take(']')) return '[]';
    for (;;) {
      items.push(this.value());
      this.skipSpace();
      if (this.take(']')) return `[${items.join(',')}]`;
      if (!this.take(',')) throw new Unreadable();
    }
  }

  private number(): string {
    const lexeme = this.match(NUMBER);
    if (lexeme === undefined) throw new Unreadable();
    this.at += lexeme.length;
    if (!lexeme.includes('.')) {
      const value = BigInt(lexeme);
      // A 64-bit integer, as upstream reads it.
      if (value > 9223372036854775807n || value < -9223372036854775808n) throw new Unreadable();
      return value.toString();
    }
    const value = Number(lexeme);
    const json = JSON.stringify(value);
    // A float keeps its point, as a float prints upstream (`1.0`, not `1`).
    return Number.isInteger(value) && !json.includes('e') ? `${json}.0` : json;
  }

  private skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at += 1;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private take(ch: string): boolean {
    if (this.text[this.at] !== ch) return false;
    this.at += 1;
    return true;
  }

  /** What `pattern` (sticky) matches at the position; the position does not move. */
  private match(pattern: RegExp): string | undefined {
    pattern.lastIndex = this.at;
    return pattern.exec(this.text)?.[0];
  }
}

/** The JSON text of a call's arguments (the text between its braces); null when unreadable. */
export function gemmaArguments(text: string): string | null {
  try {
    return new LiteralReader(text).arguments();
  } catch (error) {
    if (error instanceof Unreadable) return null;
    throw error;
  }
}
