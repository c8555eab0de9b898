// Drivers for reasoning parser tests: feed a text whole, one character at a time, or cut at every
// position, and compare what the parser released in total.

import assert from 'node:assert/strict';
import type { ReasoningParser, ReasoningSplit } from '../../../../src/pipeline/postprocess/index.js';

/** Every push's split, then the finish split. */
export function pushAll(parser: ReasoningParser, pieces: readonly string[]): ReasoningSplit[] {
  return [...pieces.map((piece) => parser.push(piece)), parser.finish()];
}

/** What a client concatenating every released piece ends up with. */
export function joined(splits: readonly ReasoningSplit[]): ReasoningSplit {
  return {
    reasoning: splits.map((s) => s.reasoning).join(''),
    content: splits.map((s) => s.content).join(''),
  };
}

/**
 * The ways of cutting `text` into pushes: whole, per character, in two at every position, and in
 * pieces of random lengths (a fixed seed per text, so a failure repeats).
 */
export function cuttings(text: string): { name: string; pieces: string[] }[] {
  const out = [
    { name: 'one push', pieces: [text] },
    { name: 'one character per push', pieces: Array.from(text) },
  ];
  for (let at = 1; at < text.length; at++) {
    out.push({ name: `cut at ${at}`, pieces: [text.slice(0, at), text.slice(at)] });
  }
  for (let round = 0; round < RANDOM_CUTTINGS; round++) out.push({ name: `random cut ${round}`, pieces: randomPieces(text, round) });
  return out;
}

const RANDOM_CUTTINGS = 8;

/** `text` in pieces of 1 to 6 characters, lengths drawn from a small generator seeded by the text and round. */
function randomPieces(text: string, round: number): string[] {
  let seed = round + 1;
  for (let i = 0; i < text.length; i++) seed = (Math.imul(seed, 31) + text.charCodeAt(i)) | 0;
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    seed = (Math.imul(seed, 1103515245) + 12345) | 0;
    const length = 1 + ((seed >>> 16) % 6);
    pieces.push(text.slice(at, at + length));
    at += length;
  }
  return pieces;
}

/** Asserts that every cutting of `text` gives `expected` from a fresh parser. */
export function assertEveryCutting(make: () => ReasoningParser, text: string, expected: ReasoningSplit): void {
  for (const { name, pieces } of cuttings(text)) {
    assert.deepEqual(joined(pushAll(make(), pieces)), expected, `${name}: ${JSON.stringify(pieces)}`);
  }
}
