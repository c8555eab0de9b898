// Disaggregated serving across processes: `dynamo-ts frontend` (kv routing), a prefill mocker and a
// decode mocker, over file discovery, the TCP request plane and ZMQ KV events. The hand-over
// (disaggregated_params out of the prefill worker, prefill_result into the decode worker) crosses
// the wire as JSON.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { postJson } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startFrontendProcess, startMockerProcess, stopAll, waitForModel } from './helpers.js';

let kvRoot: string;
let frontend: RunningProcess;
let prefill: RunningProcess | undefined;
let decode: RunningProcess;
let baseUrl: string;

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-disagg-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', DYN_EVENT_PLANE: 'zmq', DYN_LEASE_TTL_SECS: '2' };
  const started = await startFrontendProcess(env, ['--router-mode', 'kv']);
  frontend = started.proc;
  baseUrl = started.baseUrl;
  const engine = ['--block-size', '16', '--speedup-ratio', '100'];
  decode = startMockerProcess(env, ['--disaggregation-mode', 'decode', ...engine]);
  await waitForModel(baseUrl, MODEL, decode, 60_000);
  prefill = startMockerProcess(env, ['--worker-type', 'prefill', '--num-workers', '2', ...engine]);
});

after(async () => {
  await stopAll([prefill, decode, frontend]);
  rmSync(kvRoot, { recursive: true, force: true });
});

/** Requests are 503 until the frontend has found the prefill workers. */
async function untilPrefillServes(): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await postJson(baseUrl, '/v1/completions', { model: MODEL, prompt: 'ready?', max_tokens: 1 });
    const text = await res.text();
    if (res.status === 200) return;
    assert.equal(res.status, 503, text);
    assert.match(text, /no prefill worker/);
    if (Date.now() > deadline) throw new Error(`prefill workers never served:\n${prefill?.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('over TCP: prefill worker then decode worker, one ordinary stream with the right usage', async () => {
  await untilPrefillServes();
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const system = 'A long shared system prompt about lighthouses, harbours and the keepers who tend them. '.repeat(12);
  const messages = [{ role: 'system' as const, content: system }, { role: 'user' as const, content: 'Which lamp burns longest?' }];
  const first = await openai.chat.completions.create({ model: MODEL, messages, max_tokens: 7, ignore_eos: true } as OpenAI.ChatCompletionCreateParamsNonStreaming);
  assert.equal(first.usage!.completion_tokens, 7);

  const stream = await openai.chat.completions.create({
    model: MODEL, messages, max_tokens: 11, ignore_eos: true, stream: true, stream_options: { include_usage: true },
  } as OpenAI.ChatCompletionCreateParamsStreaming);
  let text = '';
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    usage = chunk.usage ?? usage;
  }
  assert.ok(text.length > 0);
  assert.equal(usage!.completion_tokens, 11);
  assert.equal(usage!.prompt_tokens, first.usage!.prompt_tokens);
  // The repeat was prefilled on the prefill worker holding the prefix: its cache report reaches the client.
  assert.ok((usage!.prompt_tokens_details?.cached_tokens ?? 0) > 0, JSON.stringify(usage));
});
