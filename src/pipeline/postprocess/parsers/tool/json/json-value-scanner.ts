// A JSON syntax checker fed one character at a time: it says whether the value so far is still valid
// JSON and when it is complete, so a tool call's arguments can be released as they are generated.

/**
 * `more`: consumed, the value continues; `done`: consumed, the value is complete; `ended`: the value
 * (a number) was already complete and this character is not part of it; `error`: not JSON.
 */
export type ScanStep = 'more' | 'done' | 'ended' | 'error';

type Expect = 'key-or-end' | 'key' | 'colon' | 'value' | 'value-or-end' | 'comma-or-end';

interface Container {
  kind: 'object' | 'array';
  expect: Expect;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER_CHARS = /[0-9eE.+-]/;
const NUMBER_PREFIX = /^-?(?:0|[1-9]\d*)?(?:\.\d*)?(?:[eE][+-]?\d*)?$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const HEX = /[0-9a-fA-F]/;
const LITERALS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };

export function isJsonWhitespace(ch: string): boolean {
  return WHITESPACE.has(ch);
}

export class JsonValueScanner {
  private readonly stack: Container[] = [];
  private lexeme: 'none' | 'string' | 'number' | 'literal' = 'none';
  private stringIsKey = false;
  /** In a string: 0 plain, -1 just after a backslash, n > 0 hex digits of a \u escape still due. */
  private escape = 0;
  private number = '';
  private literal = '';
  private matched = 0;
  private started = false;
  private complete = false;

  /** True once a whole value has been read (a trailing number counts when it is well formed). */
  get isComplete(): boolean {
    return this.complete || (this.stack.length === 0 && this.lexeme === 'number' && NUMBER.test(this.number));
  }

  step(ch: string): ScanStep {
    if (this.complete) return 'ended';
    switch (this.lexeme) {
      case 'string':
        return this.stringStep(ch);
      case 'literal':
        if (ch !== this.literal[this.matched]) return 'error';
        this.matched += 1;
        if (this.matched < this.literal.length) return 'more';
        this.lexeme = 'none';
        return this.valueEnded();
      case 'number': {
        if (NUMBER_CHARS.test(ch)) {
          this.number += ch;
          return NUMBER_PREFIX.test(this.number) ? 'more' : 'error';
        }
        if (!NUMBER.test(this.number)) return 'error';
        this.lexeme = 'none';
        if (this.valueEnded() === 'done') return 'ended';
        return this.structureStep(ch);
      }
      default:
        return this.structureStep(ch);
    }
  }

  private stringStep(ch: string): ScanStep {
    if (this.escape === -1) {
      if (ch === 'u') this.escape = 4;
      else if ('"\\/bfnrt'.includes(ch)) this.escape = 0;
      else return 'error';
      return 'more';
    }
    if (this.escape > 0) {
      if (!HEX.test(ch)) return 'error';
      this.escape -= 1;
      return 'more';
    }
    if (ch === '\\') {
      this.escape = -1;
      return 'more';
    }
    if (ch < ' ') return 'error';
    if (ch !== '"') return 'more';
    this.lexeme = 'none';
    if (this.stringIsKey) {
      this.top().expect = 'colon';
      return 'more';
    }
    return this.valueEnded();
  }

  private structureStep(ch: string): ScanStep {
    if (WHITESPACE.has(ch)) return 'more';
    if (this.stack.length === 0) return this.started ? 'error' : this.valueStart(ch);
    const top = this.top();
    switch (top.expect) {
      case 'key-or-end':
      case 'key':
        if (ch === '"') {
          this.lexeme = 'string';
          this.stringIsKey = true;
          return 'more';
        }
        return top.expect === 'key-or-end' && ch === '}' ? this.close() : 'error';
      case 'colon':
        if (ch !== ':') return 'error';
        top.expect = 'value';
        return 'more';
      case 'value-or-end':
        if (ch === ']') return this.close();
        return this.valueStart(ch);
      case 'value':
        return this.valueStart(ch);
      case 'comma-or-end':
        if (ch === ',') {
          top.expect = top.kind === 'object' ? 'key' : 'value';
          return 'more';
        }
        return ch === (top.kind === 'object' ? '}' : ']') ? this.close() : 'error';
    }
  }

  private valueStart(ch: string): ScanStep {
    this.started = true;
    if (ch === '{' || ch === '[') {
      this.stack.push(ch === '{' ? { kind: 'object', expect: 'key-or-end' } : { kind: 'array', expect: 'value-or-end' });
      return 'more';
    }
    if (ch === '"') {
      this.lexeme = 'string';
      this.stringIsKey = false;
      return 'more';
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      this.lexeme = 'number';
      this.number = ch;
      return 'more';
    }
    const literal = LITERALS[ch];
    if (literal === undefined) return 'error';
    this.lexeme = 'literal';
    this.literal = literal;
    this.matched = 1;
    return 'more';
  }

  private close(): ScanStep {
    this.stack.pop();
    return this.valueEnded();
  }

  private valueEnded(): ScanStep {
    if (this.stack.length === 0) {
      this.complete = true;
      return 'done';
    }
    this.top().expect = 'comma-or-end';
    return 'more';
  }

  private top(): Container {
    return this.stack[this.stack.length - 1]!;
  }
}
