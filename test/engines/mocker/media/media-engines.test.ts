// The media mockers' building blocks: unit-norm deterministic embeddings, PNG and APNG bytes that
// decode (zlib) to the pixels drawn, and video frame counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { embedTokens, encodeApng, encodePng, MockEmbeddingEngine, MockVideoEngine } from '../../../../src/engines/mocker/media/index.js';

function chunks(png: Buffer): { type: string; data: Buffer }[] {
  const out = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    out.push({ type: png.subarray(at + 4, at + 8).toString('latin1'), data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return out;
}

test('embedTokens: unit norm, deterministic, and the empty input is the zero vector', () => {
  const v = embedTokens([5, 9, 11], 64);
  assert.equal(v.length, 64);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-12);
  assert.deepEqual(v, embedTokens([5, 9, 11], 64));
  assert.deepEqual(embedTokens([11, 9, 5], 64), v, 'a bag of tokens: order does not matter');
  assert.notDeepEqual(embedTokens([5, 9, 12], 64), v);
  assert.ok(embedTokens([], 4).every((x) => x === 0));
});

test('the embedding engine answers one vector per input and counts the tokens', async () => {
  const outs = [];
  const engine = new MockEmbeddingEngine(16);
  for await (const out of engine.generate({ model: 'm', token_ids: [[1, 2], [3]], annotations: [] }, { requestId: 'r', signal: new AbortController().signal })) outs.push(out);
  assert.equal(outs.length, 1);
  assert.equal(outs[0]!.embeddings.length, 2);
  assert.equal((outs[0]!.embeddings[0] as number[]).length, 16);
  assert.deepEqual([outs[0]!.prompt_tokens, outs[0]!.total_tokens], [3, 3]);
});

test('encodePng writes IHDR, one IDAT holding the filtered rows, and IEND', () => {
  const pixels = Uint8Array.from({ length: 2 * 2 * 3 }, (_, i) => i * 10);
  const png = encodePng({ width: 2, height: 2, pixels });
  const parts = chunks(png);
  assert.deepEqual(parts.map((c) => c.type), ['IHDR', 'IDAT', 'IEND']);
  const raw = inflateSync(parts[1]!.data);
  assert.deepEqual([...raw], [0, ...pixels.subarray(0, 6), 0, ...pixels.subarray(6)]);
});

test('encodeApng: acTL frame count, fcTL before every frame, fdAT after the first', () => {
  const frame = (v: number) => ({ width: 1, height: 1, pixels: Uint8Array.of(v, v, v) });
  const parts = chunks(encodeApng([frame(1), frame(2), frame(3)], 4));
  assert.deepEqual(parts.map((c) => c.type), ['IHDR', 'acTL', 'fcTL', 'IDAT', 'fcTL', 'fdAT', 'fcTL', 'fdAT', 'IEND']);
  assert.equal(parts[1]!.data.readUInt32BE(0), 3);
  const sequence = parts.filter((c) => c.type === 'fcTL' || c.type === 'fdAT').map((c) => c.data.readUInt32BE(0));
  assert.deepEqual(sequence, [0, 1, 2, 3, 4]);
});

test('the video engine streams seconds × fps frames, then the completed clip', async () => {
  const items = [];
  const engine = new MockVideoEngine();
  const request = { model: 'm', prompt: 'p', seconds: 2, size: '4x4', nvext: { fps: 2 } };
  for await (const item of engine.generate(request, { requestId: 'r', signal: new AbortController().signal })) items.push(item);
  assert.deepEqual(items.map((i) => i.status), ['in_progress', 'in_progress', 'in_progress', 'in_progress', 'completed']);
  assert.equal(items[0]!.id, 'video-r');
});
