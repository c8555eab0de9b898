// Reading a Python literal (what a pythonic tool call gives as a keyword argument's value) as the
// JSON value it stands for, from text that may still be growing: strings in either quotes, numbers,
// True/False/None, lists, tuples and dicts, as upstream's pythonic parser accepts.

/** The text ends before the literal does: read again when more has come. */
export const INCOMPLETE = Symbol('incomplete');
/** Not a literal. */
export const NOT_LITERAL = Symbol('not a literal');

export type LiteralRead = { value: unknown; end: number } | typeof INCOMPLETE | typeof NOT_LITERAL;

const CONSTANTS: Record<string, unknown> = { True: true, False: false, None: null };
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', '\\': '\\', "'": "'", '"': '"' };
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/;
const WORD = /^[A-Za-z_]\w*/;

export function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at] ?? '')) at++;
  return at;
}

/** Reads the literal that begins at `at` (after any space). */
export function readLiteral(text: string, at: number): LiteralRead {
  const start = skipSpace(text, at);
  const ch = text[start];
  if (ch === undefined) return INCOMPLETE;
  if (ch === '"' || ch === "'") return readString(text, start);
  if (ch === '[') return readSequence(text, start + 1, ']');
  if (ch === '(') return readSequence(text, start + 1, ')');
  if (ch === '{') return readDict(text, start + 1);
  // A number or a word is only known to be whole once something follows it.
  const rest = text.slice(start);
  const number = NUMBER.exec(rest);
  if (number !== null) {
    const end = start + number[0].length;
    const growing = end === text.length || /^[eE][+-]?$/.test(text.slice(end));
    return growing ? INCOMPLETE : { value: Number(number[0]), end };
  }
  if (rest === '-') return INCOMPLETE;
  const word = WORD.exec(rest);
  if (word === null) return NOT_LITERAL;
  const end = start + word[0].length;
  if (end === text.length) return Object.keys(CONSTANTS).some((name) => name.startsWith(word[0])) ? INCOMPLETE : NOT_LITERAL;
  return word[0] in CONSTANTS ? { value: CONSTANTS[word[0]], end } : NOT_LITERAL;
}

function readString(text: string, start: number): LiteralRead {
  const quote = text[start];
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === quote) return { value, end: i + 1 };
    if (ch !== '\\') {
      value += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return INCOMPLETE;
    if (next === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (hex.length < 4) return INCOMPLETE;
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return NOT_LITERAL;
      value += String.fromCharCode(parseInt(hex, 16));
      i += 5;
      continue;
    }
    value += ESCAPES[next] ?? `\\${next}`;
    i += 1;
  }
  return INCOMPLETE;
}

/** Items separated by commas up to `close`; a trailing comma is allowed, as in Python. */
function readSequence(text: string, at: number, close: string): LiteralRead {
  const items: unknown[] = [];
  let i = at;
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length) return INCOMPLETE;
    if (text[i] === close) return { value: items, end: i + 1 };
    const item = readLiteral(text, i);
    if (typeof item === 'symbol') return item;
    items.push(item.value);
    const after = separator(text, item.end, close);
    if (typeof after === 'symbol') return after;
    i = after;
  }
}

function readDict(text: string, at: number): LiteralRead {
  const dict: Record<string, unknown> = {};
  let i = at;
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length) return INCOMPLETE;
    if (text[i] === '}') return { value: dict, end: i + 1 };
    const key = readLiteral(text, i);
    if (typeof key === 'symbol') return key;
    const colon = skipSpace(text, key.end);
    if (colon >= text.length) return INCOMPLETE;
    if (text[colon] !== ':') return NOT_LITERAL;
    const value = readLiteral(text, colon + 1);
    if (typeof value === 'symbol') return value;
    dict[typeof key.value === 'string' ? key.value : JSON.stringify(key.value)] = value.value;
    const after = separator(text, value.end, '}');
    if (typeof after === 'symbol') return after;
    i = after;
  }
}

/** After an item: past a comma, or at the closing bracket. */
function separator(text: string, at: number, close: string): number | typeof INCOMPLETE | typeof NOT_LITERAL {
  const i = skipSpace(text, at);
  if (i >= text.length) return INCOMPLETE;
  if (text[i] === ',') return i + 1;
  return text[i] === close ? i : NOT_LITERAL;
}
