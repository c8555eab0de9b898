// A byte-level BPE encoder in JavaScript, built from a parsed tokenizer.json, that gives the
// native `tokenizers` ids for the shapes it handles (tokenizer-shape.ts) and says "unsupported:
// <reason>" for the rest. Synchronous, and 10-20x cheaper than the native call on chat prompts
// (bench/RESULTS.md, "Fast BPE encoder").

import { BYTE_CHARS } from './byte-level.js';
import { FastBpeEncoder, type EncoderShape, type EncoderTables } from './encoder.js';
import { MergeTable, type MergeTableParts } from './merge-table.js';
import { MAX_MERGES } from './merge-word.js';
import { bpeShapeOf } from './tokenizer-shape.js';
import { Vocab } from './vocab.js';

export { FastBpeEncoder } from './encoder.js';
export { MAX_PIECE_CHARS } from './encoder.js';
export { LiteralSearch } from './literal-search.js';

export type FastBpeLoad = { ok: true; encoder: FastBpeEncoder } | { ok: false; reason: string };

/** What encoders of one tokenizer.json can share: read-only once built; each encoder keeps its own piece cache. */
export type FastBpeTables = { ok: true; tables: EncoderTables } | { ok: false; reason: string };

const unsupported = (why: string): { ok: false; reason: string } => ({ ok: false, reason: `unsupported: ${why}` });

/** Fast-encoder tables as plain data and arrays, to hand from one thread to another. */
export type FastBpeTablesParts =
  | { ok: true; shape: EncoderShape; vocab: Readonly<Record<string, number>> | null; merges: MergeTableParts; byteIds: Int32Array }
  | { ok: false; reason: string };

export function fastBpeTablesToParts(load: FastBpeTables): FastBpeTablesParts {
  if (!load.ok) return load;
  const { shape, vocab, merges, byteIds } = load.tables;
  return { ok: true, shape, vocab: vocab?.tokens ?? null, merges: merges.toParts(), byteIds };
}

export function fastBpeTablesFromParts(parts: FastBpeTablesParts): FastBpeTables {
  if (!parts.ok) return parts;
  const { shape, vocab, merges, byteIds } = parts;
  return { ok: true, tables: { shape, vocab: vocab ? new Vocab(vocab) : null, merges: MergeTable.fromParts(merges), byteIds, byteChars: BYTE_CHARS } };
}

/** The arrays of `parts` that can move rather than copy. */
export function fastBpeTablesBuffers(parts: FastBpeTablesParts): ArrayBuffer[] {
  if (!parts.ok) return [];
  const { left, right, ranks, merged } = parts.merges;
  return [left, right, ranks, merged, parts.byteIds].map((a) => a.buffer as ArrayBuffer);
}

/** The fast encoder of a parsed tokenizer.json, or "unsupported: <reason>". */
export function loadFastBpe(json: Record<string, unknown>): FastBpeLoad {
  const load = fastBpeTables(json);
  return load.ok ? { ok: true, encoder: new FastBpeEncoder(load.tables) } : load;
}

/** The fast encoder's tables of a parsed tokenizer.json, or "unsupported: <reason>". */
export function fastBpeTables(json: Record<string, unknown>): FastBpeTables {
  const shape = bpeShapeOf(json);
  if (!shape.ok) return unsupported(shape.reason);
  const { vocab: vocabJson, merges: mergesJson, ...rest } = shape.value;
  if (mergesJson.length >= MAX_MERGES) return unsupported(`${mergesJson.length} merges`);
  const vocab = new Vocab(vocabJson);
  const byteIds = new Int32Array(256);
  for (let b = 0; b < 256; b++) {
    const id = vocab.idOf(BYTE_CHARS[b]!);
    if (id === undefined) return unsupported(`byte ${b} has no token in the vocab`);
    byteIds[b] = id;
  }
  const misnumbered = misnumberedAddedToken(shape.value.addedTokens, vocab);
  if (misnumbered !== null) return unsupported(`added token ${JSON.stringify(misnumbered)} does not have the id the native loader gives it`);
  const merges = new MergeTable(mergesJson.length);
  for (let rank = 0; rank < mergesJson.length; rank++) {
    const merge = mergesJson[rank]!;
    const pair = typeof merge === 'string' ? merge.split(' ') : merge;
    if (pair.length !== 2) return unsupported(`merge ${JSON.stringify(merge)} is not a pair`);
    const [left, right] = pair as [string, string];
    const a = vocab.idOf(left);
    const b = vocab.idOf(right);
    const merged = vocab.idOf(left + right);
    if (a === undefined || b === undefined || merged === undefined) return unsupported(`merge ${JSON.stringify(merge)} names a token not in the vocab`);
    merges.set(a, b, rank, merged);
  }
  return { ok: true, tables: { shape: rest, vocab: rest.ignoreMerges ? vocab : null, merges, byteIds, byteChars: BYTE_CHARS } };
}

/**
 * The native loader numbers added tokens itself: a token of the model vocab keeps its vocab id, the
 * others follow the vocab in file order. The first token whose id in the file says otherwise.
 */
function misnumberedAddedToken(added: ReadonlyMap<string, number>, vocab: Vocab): string | null {
  let next = vocab.size;
  for (const [content, id] of added) {
    const inVocab = vocab.idOf(content);
    if (inVocab === undefined ? id !== next++ : id !== inVocab) return content;
  }
  return null;
}
