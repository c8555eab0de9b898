// Stream chunk shapes: a choice's first and last chunks carry every field upstream sends, the
// chunks between leave out the null ones.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ChunkSerializer } from '../../../../src/frontends/http/openai/openai-chunks.js';
import type { ChoiceDelta } from '../../../../src/pipeline/index.js';

const delta = (over: Partial<ChoiceDelta>): ChoiceDelta => ({ index: 0, text: 'A', reasoning: '', tokens: 1, first: false, finishReason: null, stopReason: null, ...over });
const parse = (s: string): Record<string, unknown> & { choices: Record<string, unknown>[] } => JSON.parse(s);

test('chat: first and last chunks are complete, the ones between are lean', () => {
  const chunks = new ChunkSerializer('chat', 'chatcmpl-1', 7, 'm');
  const first = parse(chunks.choice(delta({ first: true })));
  assert.deepEqual(first, {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 7,
    model: 'm',
    system_fingerprint: null,
    choices: [{ index: 0, delta: { role: 'assistant', content: 'A' }, finish_reason: null, logprobs: null }],
    usage: null,
  });
  const middle = parse(chunks.choice(delta({})));
  assert.deepEqual(middle, { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 7, model: 'm', choices: [{ index: 0, delta: { content: 'A' }, finish_reason: null }] });
  const last = parse(chunks.choice(delta({ finishReason: 'length' })));
  assert.equal(last.system_fingerprint, null);
  assert.equal(last.usage, null);
  assert.deepEqual(last.choices[0], { index: 0, delta: { content: 'A' }, finish_reason: 'length', logprobs: null });
});

test('logprobs asked for are on every chunk', () => {
  const chunks = new ChunkSerializer('chat', 'c', 1, 'm');
  const logprobs = [{ token: 'A', logprob: -0.5, bytes: [65], top: [], textOffset: 0 }];
  const middle = parse(chunks.choice(delta({ logprobs } as Partial<ChoiceDelta>)));
  assert.deepEqual(middle.choices[0]!.logprobs, { content: [{ token: 'A', logprob: -0.5, bytes: [65], top_logprobs: [] }], refusal: null });
});

test('completions: the chunks between leave out logprobs; the last carries it', () => {
  const chunks = new ChunkSerializer('completions', 'cmpl-1', 1, 'm');
  assert.deepEqual(parse(chunks.choice(delta({}))).choices[0], { index: 0, text: 'A', finish_reason: null });
  assert.deepEqual(parse(chunks.choice(delta({ finishReason: 'stop' }))).choices[0], { index: 0, text: 'A', logprobs: null, finish_reason: 'stop' });
});

test('emit queues exactly the bytes of the chunk `choice` makes, templated or not, for both APIs', () => {
  const cases: Partial<ChoiceDelta>[] = [
    { first: true },
    {},
    { text: 'naïve "quoted" \\ text ✓ 🌊' },
    { index: 3, text: ' the' },
    { text: 'x'.repeat(200) },
    { text: '', reasoning: 'thinking' },
    { reasoning: 'r', text: 't' },
    { finishReason: 'stop', stopReason: 'END' },
    { text: '', finishReason: 'length' },
    { logprobs: [{ token: 'A', logprob: -0.5, bytes: [65], top: [], textOffset: 0 }] },
  ];
  for (const kind of ['chat', 'completions'] as const) {
    const chunks = new ChunkSerializer(kind, 'id-1', 7, 'model "m"');
    for (const over of cases) {
      const d = delta(over);
      let got = '';
      chunks.emit(d, {
        data: (json) => (got += `data: ${json}\n\n`),
        templated: (t, text) => (got += `${t.before.toString('utf8')}${JSON.stringify(text)}${t.after.toString('utf8')}`),
      });
      assert.equal(got, `data: ${chunks.choice(d)}\n\n`, `${kind} ${JSON.stringify(over)}`);
    }
  }
});
