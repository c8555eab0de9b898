import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sseData } from '../../../src/engines/openai-bridge/sse-lines.js';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

async function all(body: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of sseData(body)) out.push(d);
  return out;
}

test('events split anywhere, CRLF lines, multi-line data, comments and [DONE]', async () => {
  const body = chunks('data: {"a"', ':1}\r\n\r\n: keep-alive\n\nevent: x\ndata:{"b":2}\n', '\ndata: line1\ndata: line2\n\n', 'data: [DONE]\n\ndata: {"after":1}\n\n');
  assert.deepEqual(await all(body), ['{"a":1}', '{"b":2}', 'line1\nline2']);
});

test('a multi-byte character split across chunks stays whole; an unterminated last event is given', async () => {
  const bytes = new TextEncoder().encode('data: {"t":"é"}\n\ndata: {"end":true}');
  const cut = bytes.indexOf(0xc3) + 1;
  async function* split(): AsyncGenerator<Uint8Array> {
    yield bytes.slice(0, cut);
    yield bytes.slice(cut);
  }
  assert.deepEqual(await all(split()), ['{"t":"é"}', '{"end":true}']);
});
