// Generated texts for checking the fast BPE encoder against the native tokenizer: prose, code,
// numbers, whitespace runs, contractions in every case, scripts and marks that NFC changes,
// Unicode white space the two regex engines could read differently, lone surrogates, emoji, and
// added tokens inside words. Seeded: a failure reproduces by its index.

import { Rng } from '../../fuzz/hostile.js';

const WORDS = ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog', 'Hello', 'world', 'tokenizer', 'internationalization', 'GPT', 'HTTP', 'JSON', 'naïve', 'café', 'Straße', 'résumé', 'über'];
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Re", "'rE", "'VE", "'Ve", "'vE", "'M", "'LL", "'Ll", "'lL", "'D", "'ſ", "'K", "'x", "'"];
const CODE = ['function f(x) { return x * 2; }', 'const a = [1, 2, 3];', 'if (a && b) {\n\treturn;\n}', 'def main():\n    print("hi")\n', '#include <stdio.h>', 'SELECT * FROM t WHERE id = 42;', '<div class="x">y</div>', '{"key": "value", "n": [1.5e-3]}', 'a->b::c', '$HOME/.config', 'x+=1; y-=2;', '```ts\nlet x = 1;\n```'];
const NUMBERS = ['0', '7', '42', '123', '1234', '12345678901234567890', '3.14159', '-273.15', '1,000,000', '2026-11-23', '0x1F', '١٢٣', '४२', '½', '²', 'Ⅻ'];
const SPACES = [' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\r\n', '\r', ' \n ', '\n \n', '  \t\n', '\u00a0', '\u0085', '\ufeff', '\u2028', '\u2029', '\u3000', '\u1680', '\u2000', '\u200a', '\u202f', '\u205f', '\u000b', '\u000c', '\u200b'];
const SCRIPTS = ['你好世界', '日本語のテキスト', '한국어 문장', 'Привет мир', 'Γειά σου κόσμε ς', 'مرحبا بالعالم', 'שלום עולם', 'नमस्ते दुनिया', 'สวัสดีชาวโลก', 'Tiếng Việt', 'İstanbul ıi', 'ǅungla', 'ﬁ ﬂ ﬆ ß ẞ', 'K Å Ω', '∑∫√∞≠≤', '→⇒↔'];
/** Sequences NFC changes: combining marks that compose, Hangul jamo, singletons. */
const NFC_CHANGES = ['e\u0301', 'a\u0308', 'o\u0302\u0323', 'A\u030a', '\u1100\u1161\u11a8', 'n\u0303', '\u212b', '\u2126', 'c\u0327', 'u\u0308\u0301', 'x\u0301', '\u0301', 'e\u0301\u0301'];
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '🇫🇷', '1️⃣', '🤖✨', '\ud83d', '\ude00', 'a\udc00b', '\ud800\ud800'];
const PUNCT = ['.', ',', '!', '?', '...', '—', '–', '"', '“', '”', '«', '»', '(', ')', '[', ']', '{', '}', '<', '>', '/', '\\', '|', '#', '@', '&', '*', '%', '$', '€', '£', '¥', '~', '`', '^', '_', '-', '+', '=', ':', ';'];

export interface CorpusOptions {
  /** Added tokens to mix in, whole and cut short. */
  addedTokens: readonly string[];
}

/** `count` texts from `seed`. */
export function corpus(count: number, seed: number, opts: CorpusOptions): string[] {
  const rng = new Rng(seed);
  const added = opts.addedTokens;
  const fragment = (): string => {
    switch (rng.int(11)) {
      case 0:
        return rng.pick(WORDS) + rng.pick(CONTRACTIONS);
      case 1:
        return rng.pick(CODE);
      case 2:
        return rng.pick(NUMBERS);
      case 3:
        return rng.pick(SPACES).repeat(1 + rng.int(3));
      case 4:
        return rng.pick(SCRIPTS);
      case 5:
        return rng.pick(WORDS) + rng.pick(NFC_CHANGES);
      case 6:
        return rng.pick(EMOJI);
      case 7:
        return rng.pick(PUNCT).repeat(1 + rng.int(3));
      case 8: {
        if (added.length === 0) return rng.pick(WORDS);
        const token = rng.pick(added);
        // Inside a word, whole or cut short.
        return rng.pick(WORDS) + (rng.int(3) === 0 ? token.slice(0, 1 + rng.int(token.length - 1)) : token) + rng.pick(WORDS);
      }
      case 9:
        return Array.from({ length: 1 + rng.int(40) }, () => String.fromCharCode(97 + rng.int(26))).join('');
      default:
        return rng.pick(WORDS);
    }
  };
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const parts: string[] = [];
    const n = 1 + rng.int(12);
    for (let k = 0; k < n; k++) parts.push(fragment(), rng.pick([' ', ' ', ' ', '', '\n', '  ']));
    texts.push(parts.join(''));
  }
  return texts;
}
