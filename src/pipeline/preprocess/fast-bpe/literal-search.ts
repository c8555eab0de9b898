// Where any of a set of literal strings (a tokenizer's added tokens) next occurs in a text, as an
// alternation of them, longest first, finds it: the leftmost occurrence, and of those starting
// there the longest. A regex alternation of a few dozen literals tries each of them at every
// position of a long prompt; jumping with indexOf to the few characters they start with and
// trying the alternation only there costs a fraction of that.

const REGEXP_SPECIALS = /[.*+?^${}()|[\]\\]/g;

/** Above this many distinct first characters the jumps cost more than the plain search. */
const MAX_FIRST_CHARS = 4;

export class LiteralSearch {
  /** The alternation, anchored where it is tried. */
  private readonly sticky: RegExp;
  /** The alternation searching on its own, when jumping does not pay (or a literal is empty). */
  private readonly global: RegExp | null;
  private readonly firstChars: readonly string[];
  /** The literal the last `next` found. */
  matched = '';

  /** `literals`: non-empty for the jumps to apply (an empty one is searched for as a regex would). */
  constructor(literals: Iterable<string>) {
    const sorted = [...literals].sort((a, b) => b.length - a.length);
    const source = sorted.map((c) => c.replace(REGEXP_SPECIALS, '\\$&')).join('|');
    this.sticky = new RegExp(source, 'y');
    const firstChars = [...new Set(sorted.map((c) => c.charAt(0)))];
    const jumps = firstChars.length <= MAX_FIRST_CHARS && !firstChars.includes('');
    this.firstChars = jumps ? firstChars : [];
    this.global = jumps ? null : new RegExp(source, 'g');
  }

  /** The index of the next literal in `text` at or after `from` (then in `matched`), or -1. */
  next(text: string, from: number): number {
    if (this.global !== null) return this.searchGlobal(text, from);
    const sticky = this.sticky;
    for (let at = this.nextCandidate(text, from); at !== -1; at = this.nextCandidate(text, at + 1)) {
      sticky.lastIndex = at;
      if (sticky.test(text)) {
        this.matched = text.slice(at, sticky.lastIndex);
        return at;
      }
    }
    return -1;
  }

  /** Where one of the literals' first characters next stands. */
  private nextCandidate(text: string, from: number): number {
    const chars = this.firstChars;
    let best = text.indexOf(chars[0]!, from);
    for (let i = 1; i < chars.length; i++) {
      const at = text.indexOf(chars[i]!, from);
      if (at !== -1 && (best === -1 || at < best)) best = at;
    }
    return best;
  }

  private searchGlobal(text: string, from: number): number {
    const global = this.global!;
    global.lastIndex = from;
    const m = global.exec(text);
    if (m === null) return -1;
    this.matched = m[0];
    return m.index;
  }
}
