// A Hugging Face pre-tokenizer pattern (Oniguruma syntax) as a JavaScript `u` regex with the same
// matches, for the constructs tokenizers use; anything else is refused with the reason, never
// guessed at. The differences handled: `\s` is Unicode White_Space in Oniguruma (JS `\s` lacks
// U+0085 and adds U+FEFF), and `(?i:...)` groups, which JS here cannot scope, become per-letter
// case classes.

/** Unicode White_Space, as a class body. */
const WHITE_SPACE = '\\t\\n\\v\\f\\r \\x85\\xA0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
/** General categories `\p{..}` may name (their meaning is the same in both engines). */
const CATEGORIES = new Set(['L', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'M', 'Mn', 'Mc', 'Me', 'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po', 'S', 'Sm', 'Sc', 'Sk', 'So', 'Z', 'Zs', 'Zl', 'Zp']);
const SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);
const SIMPLE_ESCAPES = new Set([...'tnrfv']);

export type ConvertedRegex = { ok: true; regex: RegExp } | { ok: false; reason: string };

class Unconvertible extends Error {}

export function convertOnigRegex(pattern: string): ConvertedRegex {
  let source: string;
  try {
    source = new Converter(pattern).run();
  } catch (err) {
    if (err instanceof Unconvertible) return { ok: false, reason: `pattern ${JSON.stringify(pattern)}: ${err.message}` };
    throw err;
  }
  try {
    return { ok: true, regex: new RegExp(source, 'gu') };
  } catch (err) {
    return { ok: false, reason: `pattern ${JSON.stringify(pattern)} converts to an invalid JS regex: ${(err as Error).message}` };
  }
}

class Converter {
  private at = 0;
  private out = '';

  constructor(private readonly src: string) {}

  run(): string {
    let depth = 0;
    while (this.at < this.src.length) {
      const c = this.src[this.at++]!;
      if (c === '\\') this.out += this.escape(false);
      else if (c === '[') this.out += this.charClass();
      else if (c === '(') {
        depth++;
        this.out += this.groupOpening();
      } else if (c === ')') {
        if (--depth < 0) throw new Unconvertible('unbalanced )');
        this.out += ')';
      } else if (c === '*' || c === '+' || c === '?') this.out += c + this.quantifierSuffix();
      else if (c === '|') this.out += c;
      else if (c === '{') this.out += this.counted();
      else if (c === '.' || c === '^' || c === '$') throw new Unconvertible(`'${c}' has different meanings in the two engines`);
      else this.out += literal(c);
    }
    if (depth !== 0) throw new Unconvertible('unbalanced (');
    return this.out;
  }

  /** After `(`: the kinds of group both engines read alike, and `(?i:` alternatives of literals. */
  private groupOpening(): string {
    const rest = this.src.slice(this.at);
    for (const opening of ['?:', '?=', '?!', '?<=', '?<!']) {
      if (rest.startsWith(opening)) {
        this.at += opening.length;
        return `(${opening}`;
      }
    }
    if (rest.startsWith('?i:')) {
      this.at += 3;
      return this.caseless();
    }
    if (rest.startsWith('?')) throw new Unconvertible(`group (${rest.slice(0, 3)}... is not converted`);
    return '(?:';
  }

  /** `(?i:a|bc)` → `(?:[aA]|[bB][cC]`; the closing `)` is left to the main loop. */
  private caseless(): string {
    const end = this.src.indexOf(')', this.at);
    if (end < 0) throw new Unconvertible('unbalanced (?i:');
    const body = this.src.slice(this.at, end);
    if (/[\\[\](){}*+?.^$]/.test(body)) throw new Unconvertible('(?i:...) holding more than alternatives of literal characters');
    this.at = end;
    const alternatives = body.split('|');
    // Oniguruma folds fully (ß matches "ss"); per-letter classes cannot say that.
    for (const alt of alternatives) {
      const folded = multiCharFolds().find((f) => alt.toLowerCase().includes(f));
      if (folded !== undefined) throw new Unconvertible(`(?i:...) alternative "${alt}" holds "${folded}", which one character folds to`);
    }
    return `(?:${alternatives.map((alt) => [...alt].map(caseClass).join('')).join('|')}`;
  }

  /** A possessive quantifier has no JS form; a lazy one is the same. */
  private quantifierSuffix(): string {
    const c = this.src[this.at];
    if (c === '+') throw new Unconvertible('possessive quantifiers are not converted');
    if (c === '?') {
      this.at++;
      return '?';
    }
    return '';
  }

  private counted(): string {
    const m = /^(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
    if (!m) throw new Unconvertible("'{' that is not a {n}, {n,} or {n,m} quantifier");
    this.at += m[0].length;
    return `{${m[0]}${this.quantifierSuffix()}`;
  }

  /** After `\`: the escape in JS form; `inClass` gives `\s` as class members. */
  private escape(inClass: boolean): string {
    const c = this.src[this.at++];
    if (c === undefined) throw new Unconvertible('trailing \\');
    if (c === 's') return inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
    if (c === 'S') {
      if (inClass) throw new Unconvertible('\\S inside a character class is not converted');
      return `[^${WHITE_SPACE}]`;
    }
    if (c === 'p' || c === 'P') {
      const m = /^\{(\^?)(\w+)\}/.exec(this.src.slice(this.at));
      if (!m || !CATEGORIES.has(m[2]!)) throw new Unconvertible(`\\${c}${m ? m[0] : ''}: only general categories are converted`);
      this.at += m[0].length;
      const negated = (c === 'P') !== (m[1] === '^');
      return `\\${negated ? 'P' : 'p'}{${m[2]}}`;
    }
    if (SIMPLE_ESCAPES.has(c)) return `\\${c}`;
    if (c === 'x' || c === 'u') {
      const digits = c === 'x' ? 2 : 4;
      const hex = this.src.slice(this.at, this.at + digits);
      if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) throw new Unconvertible(`\\${c}${hex}: only \\xHH and \\uHHHH hex escapes are converted`);
      this.at += digits;
      return `\\${c}${hex}`;
    }
    if (/[0-9A-Za-z]/.test(c)) throw new Unconvertible(`\\${c} is not converted`);
    if (inClass && c === '-') return '\\-';
    return literal(c);
  }

  /** After `[`: the class with `\s` spelled out; nesting, intersections and POSIX classes refused. */
  private charClass(): string {
    let out = '[';
    if (this.src[this.at] === '^') {
      out += '^';
      this.at++;
    }
    if (this.src[this.at] === ']') throw new Unconvertible("']' first in a class is not converted");
    for (;;) {
      const c = this.src[this.at++];
      if (c === undefined) throw new Unconvertible('unterminated [');
      if (c === ']') return `${out}]`;
      if (c === '[') throw new Unconvertible('nested or POSIX classes are not converted');
      if (c === '&' && this.src[this.at] === '&') throw new Unconvertible('class intersection is not converted');
      if (c === '\\') out += this.escape(true);
      else out += c;
    }
  }
}

function literal(c: string): string {
  return SYNTAX.has(c) ? `\\${c}` : c;
}

/** Every character with the same simple case folding as `c` (the letters of a `(?i:` group: s also matches ſ). */
function caseClass(c: string): string {
  const members = [...new Set([...allCharacters().matchAll(new RegExp(literal(c), 'giu'))].map((m) => m[0]))];
  return members.length <= 1 ? literal(c) : `[${members.map(literal).join('')}]`;
}

let folds: string[] | undefined;

/** The strings of more than one character that some character folds to ("ss" for ß, "st" for ﬆ). */
function multiCharFolds(): string[] {
  if (folds === undefined) {
    const found = new Set<string>();
    for (const c of allCharacters()) {
      const folded = c.toUpperCase().toLowerCase();
      if ([...folded].length > 1) found.add(folded);
    }
    folds = [...found];
  }
  return folds;
}

let characters: string | undefined;

/** The characters of the BMP and plane 1 (where every cased letter is), built once. */
function allCharacters(): string {
  if (characters === undefined) {
    const chars: string[] = [];
    for (let cp = 0; cp < 0x20000; cp++) if (cp < 0xd800 || cp > 0xdfff) chars.push(String.fromCodePoint(cp));
    characters = chars.join('');
  }
  return characters;
}
