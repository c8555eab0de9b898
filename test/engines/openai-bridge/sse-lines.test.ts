import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseDataReader } from '../../../src/engines/openai-bridge/sse-lines.js';

/** Every event's data, the bytes pushed in the pieces given, then the end. */
function all(...parts: Uint8Array[]): string[] {
  const out: string[] = [];
  const reader = new SseDataReader((d) => void out.push(d));
  for (const p of parts) reader.push(Buffer.from(p));
  reader.end();
  return out;
}

const chunks = (...parts: string[]): Uint8Array[] => parts.map((p) => new TextEncoder().encode(p));

test('events split anywhere, CRLF lines, multi-line data, comments and [DONE]', () => {
  const body = chunks('data: {"a"', ':1}\r\n\r\n: keep-alive\n\nevent: x\ndata:{"b":2}\n', '\ndata: line1\ndata: line2\n\n', 'data: [DONE]\n\ndata: {"after":1}\n\n');
  assert.deepEqual(all(...body), ['{"a":1}', '{"b":2}', 'line1\nline2']);
});

test('a multi-byte character split across chunks stays whole; an unterminated last event is given', () => {
  const bytes = new TextEncoder().encode('data: {"t":"é"}\n\ndata: {"end":true}');
  const cut = bytes.indexOf(0xc3) + 1;
  assert.deepEqual(all(bytes.slice(0, cut), bytes.slice(cut)), ['{"t":"é"}', '{"end":true}']);
});
