// UTF-8 held across tokens: a character split over several tokens comes out exactly once, and
// U+FFFD appears only for bytes that really are invalid.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncrementalDecoder, TokenTable } from '../../../src/pipeline/postprocess/index.js';
import { qwen3Paths } from './support.js';

const qwen = TokenTable.fromFile(qwen3Paths().tokenizer);

/** Qwen3 has a single-byte token for every byte value. */
const byteId = new Map<number, number>();
for (let id = 0; id < qwen.vocabSize; id++) {
  const bytes = qwen.tokenBytes(id);
  if (bytes?.length === 1 && !byteId.has(bytes[0]!)) byteId.set(bytes[0]!, id);
}
const idsOfBytes = (bytes: number[]): number[] => bytes.map((b) => byteId.get(b)!);
const utf8 = (s: string): number[] => [...new TextEncoder().encode(s)];

function pushAll(ids: number[], skipSpecial = true): string[] {
  const d = new IncrementalDecoder(qwen, skipSpecial);
  return [...ids.map((id) => d.push(id)), d.flush()];
}

test('every byte value has a single-byte token in Qwen3', () => {
  assert.equal(byteId.size, 256);
});

test('a 4-byte emoji over 4 tokens comes out once, on the last token', () => {
  assert.deepEqual(pushAll(idsOfBytes(utf8('😀'))), ['', '', '', '😀', '']);
});

test('a 3-byte CJK character over 2 and over 3 tokens', () => {
  const [b0, b1, b2] = utf8('漢');
  const twoIds = [...idsOfBytes([b0!, b1!]), ...idsOfBytes([b2!])];
  assert.deepEqual(pushAll(twoIds), ['', '', '漢', '']);
  assert.deepEqual(pushAll(idsOfBytes([b0!, b1!, b2!]).concat(idsOfBytes(utf8('x')))), ['', '', '漢', 'x', '']);
});

test('a run of split astral and rare characters decodes each exactly once', () => {
  const text = '🫨🫨 𝄞 ꙮ';
  const bytes = utf8(text);
  const ids = idsOfBytes(bytes);
  const pieces = pushAll(ids);
  assert.equal(pieces.join(''), text);
  assert.ok(!pieces.join('').includes('\ufffd'));
  assert.equal(pieces.filter((p) => p === '🫨').length, 2);
});

test('a special token skipped between the bytes of a character does not break it', () => {
  const [b0, b1, b2] = utf8('€');
  const ids = [...idsOfBytes([b0!]), 151645, ...idsOfBytes([b1!, b2!])];
  assert.deepEqual(pushAll(ids, true), ['', '', '', '€', '']);
});

test('a genuinely invalid byte gives U+FFFD at once and decoding continues', () => {
  assert.deepEqual(pushAll(idsOfBytes([0xff, 0x61])), ['\ufffd', 'a', '']);
  // A broken sequence is one U+FFFD (maximal subpart), and the byte that broke it is decoded.
  assert.deepEqual(pushAll(idsOfBytes([0xe2, 0x82, 0x78])), ['', '', '\ufffdx', '']);
  // A lone continuation byte.
  assert.deepEqual(pushAll(idsOfBytes([0x80])), ['\ufffd', '']);
});

test('a character truncated at the end is flushed as U+FFFD', () => {
  assert.deepEqual(pushAll(idsOfBytes([0xf0, 0x9f])), ['', '', '\ufffd']);
});

test('an id outside the vocabulary is a decode error', () => {
  const d = new IncrementalDecoder(qwen, true);
  assert.throws(() => d.push(qwen.vocabSize + 5), /decode error/);
  assert.throws(() => d.push(-1), /decode error/);
});
