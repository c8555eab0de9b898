// The mocker's output vocabulary: "units" of one or more real token ids whose bytes, concatenated,
// are complete UTF-8. Emitting whole units keeps any stream of mocker tokens decodable, while the
// multi-token units (a character split over two tokens) still exercise incremental detokenizers.

/** What a tokenizer offers: the raw bytes of every id. The detokenizer module provides this shape. */
export interface VocabularySource {
  vocabSize: number;
  /** Raw bytes of a token, or null if the id has none (unused or special). */
  tokenBytes(id: number): Uint8Array | null;
  specialIds: ReadonlySet<number>;
}

export type UnitCategory = 'word' | 'punctuation' | 'wide' | 'split' | 'other';

export interface UnitGroup {
  readonly category: UnitCategory;
  /** Relative draw weight. */
  readonly weight: number;
  /** Units of this group are [first, first + count). */
  readonly first: number;
  readonly count: number;
}

export interface MockVocabulary {
  /** Token ids of all units, concatenated; unit u is unitTokens[unitStart[u] .. unitStart[u + 1]). */
  readonly unitTokens: Uint32Array;
  readonly unitStart: Uint32Array;
  /** Non-empty; groups[0] holds single-token units. */
  readonly groups: readonly UnitGroup[];
  readonly totalWeight: number;
  /** Raw bytes of any token id, for the text of logprob alternatives. */
  tokenBytes(id: number): Uint8Array | null;
  /** The tokenizer's special ids: the last one in a prompt marks where the answer starts. */
  readonly specialIds: ReadonlySet<number>;
}

/** Draw weights: mostly words so the text reads like prose. */
const GROUP_WEIGHTS: Record<UnitCategory, number> = { word: 80, punctuation: 7, wide: 6, split: 7, other: 1 };

/** Upper bound on two-token units kept; a spread sample keeps the build small. */
const MAX_SPLIT_UNITS = 4096;

const PUNCTUATION = new Set([',', '.', '!', '?', ';', ':'].map((c) => c.charCodeAt(0)));

/** Byte length of the UTF-8 sequence a lead byte starts, 0 if it is not a lead byte. */
function utf8SequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Strict UTF-8 validity (no overlongs, surrogates or code points above U+10FFFF), and no U+FFFD. */
export function isCompleteUtf8(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const len = utf8SequenceLength(lead);
    if (len === 0 || i + len > bytes.length) return false;
    if (len > 1) {
      const second = bytes[i + 1]!;
      let lo = 0x80;
      let hi = 0xbf;
      if (lead === 0xe0) lo = 0xa0;
      else if (lead === 0xed) hi = 0x9f;
      else if (lead === 0xf0) lo = 0x90;
      else if (lead === 0xf4) hi = 0x8f;
      if (second < lo || second > hi) return false;
      for (let k = 2; k < len; k++) {
        const c = bytes[i + k]!;
        if (c < 0x80 || c > 0xbf) return false;
      }
      // A literal U+FFFD would be indistinguishable from a decoding failure downstream.
      if (lead === 0xef && second === 0xbf && bytes[i + 2] === 0xbd) return false;
    }
    i += len;
  }
  return true;
}

function isWord(bytes: Uint8Array): boolean {
  if (bytes.length < 3 || bytes[0] !== 0x20) return false;
  for (let i = 1; i < bytes.length; i++) {
    const c = bytes[i]! | 0x20;
    if (c < 0x61 || c > 0x7a) return false;
  }
  return true;
}

function hasControlByte(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 0x20 || b === 0x7f) return true;
  return false;
}

function isContinuationOnly(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b < 0x80 || b > 0xbf) return false;
  return bytes.length > 0;
}

/** Bytes still missing if `bytes` is exactly the start of one multi-byte character, else 0. */
function missingAfterLeadFragment(bytes: Uint8Array): number {
  const len = utf8SequenceLength(bytes[0] ?? 0);
  if (len < 2 || bytes.length >= len) return 0;
  for (let i = 1; i < bytes.length; i++) if (bytes[i]! < 0x80 || bytes[i]! > 0xbf) return 0;
  return len - bytes.length;
}

/** Scripts a reader will recognise: Latin accents, kana, CJK ideographs, Hangul, emoji. */
const COMMON_RANGES: readonly [number, number][] = [
  [0x00c0, 0x024f],
  [0x3040, 0x30ff],
  [0x4e00, 0x9fff],
  [0xac00, 0xd7a3],
  [0x1f300, 0x1faff],
];

/** Code point of a single valid UTF-8 character. */
function codePointOf(bytes: Uint8Array): number {
  const len = bytes.length;
  let cp = len === 1 ? bytes[0]! : bytes[0]! & (0xff >> (len + 1));
  for (let i = 1; i < len; i++) cp = (cp << 6) | (bytes[i]! & 0x3f);
  return cp;
}

function isCommonCharacter(bytes: Uint8Array): boolean {
  const cp = codePointOf(bytes);
  return COMMON_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Builds the unit table from a tokenizer's byte table. Throws if no token is usable. */
export function buildMockVocabulary(source: VocabularySource): MockVocabulary {
  const singles: Record<Exclude<UnitCategory, 'split'>, number[]> = { word: [], punctuation: [], wide: [], other: [] };
  const leadFragments: { id: number; bytes: Uint8Array; missing: number }[] = [];
  const tails = new Map<number, { id: number; bytes: Uint8Array }[]>();

  for (let id = 0; id < source.vocabSize; id++) {
    if (source.specialIds.has(id)) continue;
    const bytes = source.tokenBytes(id);
    if (!bytes || bytes.length === 0) continue;
    if (isCompleteUtf8(bytes)) {
      if (hasControlByte(bytes)) continue;
      if (isWord(bytes)) singles.word.push(id);
      else if (bytes.length === 1 && PUNCTUATION.has(bytes[0]!)) singles.punctuation.push(id);
      else if (bytes.some((b) => b >= 0x80)) singles.wide.push(id);
      else singles.other.push(id);
      continue;
    }
    const missing = missingAfterLeadFragment(bytes);
    if (missing > 0) leadFragments.push({ id, bytes, missing });
    else if (isContinuationOnly(bytes) && bytes.length <= 3) {
      let list = tails.get(bytes.length);
      if (!list) tails.set(bytes.length, (list = []));
      list.push({ id, bytes });
    }
  }

  // Split characters from common scripts, or from any script if the vocabulary has none of those.
  const splits: [number, number][] = [];
  const rareSplits: [number, number][] = [];
  for (const lead of leadFragments) {
    for (const tail of tails.get(lead.missing) ?? []) {
      const char = concat(lead.bytes, tail.bytes);
      if (!isCompleteUtf8(char)) continue;
      (isCommonCharacter(char) ? splits : rareSplits).push([lead.id, tail.id]);
    }
  }
  if (splits.length === 0) splits.push(...rareSplits);
  const stride = Math.max(1, Math.ceil(splits.length / MAX_SPLIT_UNITS));
  const keptSplits = splits.filter((_, i) => i % stride === 0);

  const groups: UnitGroup[] = [];
  const tokens: number[] = [];
  const starts: number[] = [];
  let unitCount = 0;
  const addGroup = (category: UnitCategory, units: readonly (readonly number[])[]): void => {
    if (units.length === 0) return;
    groups.push({ category, weight: GROUP_WEIGHTS[category], first: unitCount, count: units.length });
    for (const unit of units) {
      starts.push(tokens.length);
      tokens.push(...unit);
    }
    unitCount += units.length;
  };
  addGroup('word', singles.word.map((id) => [id]));
  addGroup('punctuation', singles.punctuation.map((id) => [id]));
  addGroup('wide', singles.wide.map((id) => [id]));
  // Other printable ASCII is only a fallback for vocabularies without words.
  if (singles.word.length === 0) addGroup('other', singles.other.map((id) => [id]));
  // The sampler relies on the first group holding single-token units.
  if (unitCount === 0) throw new Error('buildMockVocabulary: the source has no single token with complete UTF-8 text');
  addGroup('split', keptSplits);
  starts.push(tokens.length);

  return {
    unitTokens: Uint32Array.from(tokens),
    unitStart: Uint32Array.from(starts),
    groups,
    totalWeight: groups.reduce((sum, g) => sum + g.weight, 0),
    tokenBytes: (id) => source.tokenBytes(id),
    specialIds: source.specialIds,
  };
}
