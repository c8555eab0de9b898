// Ported from upstream lib/llm/tests/kserve_service.rs (reference/kserve.md §9.2), completions side.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { HfTokenizer } from '../../../src/pipeline/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import {
  boolInput,
  completionsModel,
  CyclingIdsEngine,
  FailureEngine,
  LongRunningEngine,
  SplitEngine,
  startHarness,
  streamInfer,
  textInput,
  texts,
  rawBytes,
  type Harness,
} from './harness.js';

let h: Harness;
const longRunning = new LongRunningEngine();
const tokenizer = new HfTokenizer(loadDefaultModelCard().tokenizerJsonPath);
// A character split over two tokens, a skipped special token (<|im_start|>) and a word: the steps of
// the first and the second release no text.
const EMOJI = await tokenizer.encode('\u{1FAE0}', false);
const TEXTLESS_CYCLE = [...EMOJI, 151644, ...(await tokenizer.encode(' ok', false))];

before(async () => {
  h = await startHarness({
    completions: [
      completionsModel('split', new SplitEngine()),
      completionsModel('failure', new FailureEngine()),
      completionsModel('long_running', longRunning),
      completionsModel('textless_steps', new CyclingIdsEngine(TEXTLESS_CYCLE)),
    ],
  });
});
after(() => h.close());

async function rejects(p: Promise<unknown>, code: number, includes?: string): Promise<void> {
  await assert.rejects(p, (err: grpc.ServiceError) => {
    assert.equal(err.code, code, err.message);
    if (includes) assert.ok(err.details.includes(includes), `${err.details} should include ${includes}`);
    return true;
  });
}

test('live, ready and model readiness', async () => {
  assert.deepEqual(await h.call('ServerLive', {}), { live: true });
  assert.deepEqual(await h.call('ServerReady', {}), { ready: true });
  assert.deepEqual(await h.call('ModelReady', { name: 'split' }), { ready: true });
  assert.deepEqual(await h.call('ModelReady', { name: 'nope' }), { ready: false });
});

test('infer failures: unknown model, empty inputs, streaming, engine error', async () => {
  await rejects(h.call('ModelInfer', { model_name: 'Tonic', inputs: [textInput('x')] }), grpc.status.NOT_FOUND, "Model 'Tonic' not found");
  await rejects(h.call('ModelInfer', { model_name: 'split', inputs: [] }), grpc.status.INVALID_ARGUMENT, "Missing required input: 'text_input'");
  await rejects(
    h.call('ModelInfer', { model_name: 'split', inputs: [textInput('dummy input'), boolInput('streaming', true)] }),
    grpc.status.INVALID_ARGUMENT,
    'Streaming is not supported',
  );
  await rejects(h.call('ModelInfer', { model_name: 'failure', inputs: [textInput('dummy input')] }), grpc.status.INTERNAL, 'Failed to generate completions:');
});

test('input validation messages', async () => {
  const bad = (input: unknown, text: string) =>
    rejects(h.call('ModelInfer', { model_name: 'split', inputs: [input] }), grpc.status.INVALID_ARGUMENT, text);
  await bad({ ...textInput('x'), datatype: 'INT32' }, `Expected 'text_input' to be of type BYTES for string input, got "INT32"`);
  await bad({ ...textInput('x'), shape: [2] }, "Expected 'text_input' to have shape [1], got [2]");
  await bad({ name: 'other', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('x')] } }, 'Invalid input name: other');
  await rejects(
    h.call('ModelInfer', { model_name: 'split', inputs: [textInput('x'), boolInput('stream', false)], raw_input_contents: [rawBytes('x')] }),
    grpc.status.INVALID_ARGUMENT,
    '`raw_input_contents` must be used for all inputs',
  );
});

test('infer success with typed and raw text_input; the request id comes back', async () => {
  for (const request of [
    { model_name: 'split', id: '1234', inputs: [textInput('dummy input')] },
    { model_name: 'split', id: '1234', inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }], raw_input_contents: [rawBytes('dummy input')] },
  ]) {
    const res = await h.call<any>('ModelInfer', request);
    assert.equal(res.model_name, 'split');
    assert.equal(res.model_version, '1');
    assert.equal(res.id, '1234');
    assert.deepEqual(res.outputs.map((o: any) => o.name), ['text_output', 'finish_reason']);
    assert.deepEqual(texts(res.outputs[0]), ['dummy input']);
    assert.deepEqual(res.outputs[0].shape, ['1']);
    assert.equal(res.outputs[0].datatype, 'BYTES');
    assert.deepEqual(texts(res.outputs[1]), ['stop']);
    assert.deepEqual(res.raw_output_contents, []);
  }
});

test('sampling parameters and vLLM-backend inputs', async () => {
  const res = await h.call<any>('ModelInfer', {
    model_name: 'split',
    inputs: [
      textInput('dummy input'),
      { name: 'sampling_parameters', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('{"max_tokens": 1, "n": 2}')] } },
      boolInput('exclude_input_in_output', false),
      boolInput('return_num_input_tokens', true),
      boolInput('return_num_output_tokens', true),
    ],
    parameters: { temperature: { double_param: 0.5 }, max_tokens: { int64_param: 7 } },
  });
  const byName = Object.fromEntries(res.outputs.map((o: any) => [o.name, o]));
  // max_tokens 1 from sampling_parameters wins over the parameters map: one token per choice, two choices.
  assert.deepEqual(byName.text_output.shape, ['2']);
  for (const text of texts(byName.text_output)) assert.ok(text.startsWith('dummy input'), text);
  assert.deepEqual(texts(byName.finish_reason), ['length', 'length']);
  assert.ok(byName.num_input_tokens.contents.uint_contents[0] > 0);
  assert.deepEqual(byName.num_output_tokens.contents.uint_contents, [1, 1]);
  await rejects(
    h.call('ModelInfer', { model_name: 'split', inputs: [textInput('x')], parameters: { temperature: { string_param: 'hot' } } }),
    grpc.status.INVALID_ARGUMENT,
    "Sampling parameter 'temperature' must be a number",
  );
});

test('the request the tensors make is checked as an HTTP body is, in the same words', async () => {
  const bad = (extra: Record<string, unknown>, details: string) =>
    assert.rejects(h.call('ModelInfer', { model_name: 'split', inputs: [textInput('x')], ...extra }), (err: grpc.ServiceError) => {
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(err.details, details);
      return true;
    });
  await bad({ parameters: { temperature: { double_param: 5 } } }, 'Failed to parse request: Validation: Temperature must be between 0 and 2, got 5');
  await bad(
    { inputs: [textInput('x'), { name: 'sampling_parameters', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('{"max_tokens": -1}')] } }] },
    'Failed to parse request: Failed to deserialize the JSON body into the target type: max_tokens: invalid type: integer `-1`, expected a non-negative integer',
  );
  await bad({ parameters: { stop: { string_param: '["a", ""]' } } }, 'Failed to parse request: Validation: Stop sequence at index 1 cannot be empty');
  await bad({ inputs: [textInput('')] }, 'Failed to parse request: Validation: Prompt string cannot be empty');
});

const stream = (requests: unknown[]) => streamInfer(h.client, requests);

test('stream infer: streaming request yields one message per step, non-streaming ones fold, in order', async () => {
  const streamed = await stream([{ model_name: 'split', id: '1234', inputs: [textInput('dummy input'), boolInput('streaming', true)] }]);
  assert.equal(streamed.error, undefined);
  assert.ok(streamed.messages.length >= 2);
  for (const m of streamed.messages) {
    assert.equal(m.error_message, '');
    assert.equal(m.infer_response.id, '1234');
    assert.deepEqual(m.infer_response.outputs[0].shape, ['1']);
    assert.deepEqual(m.infer_response.outputs[1].shape, ['1']);
  }
  assert.equal(streamed.messages.map((m) => texts(m.infer_response.outputs[0])[0]).join(''), 'dummy input');
  assert.equal(texts(streamed.messages.at(-1).infer_response.outputs[1])[0], 'stop');

  const folded = await stream([
    { model_name: 'split', id: '0', inputs: [textInput('dummy input')] },
    { model_name: 'split', id: '1', inputs: [textInput('dummy input')] },
  ]);
  assert.deepEqual(folded.messages.map((m) => m.infer_response.id), ['0', '1']);
  for (const m of folded.messages) assert.deepEqual(texts(m.infer_response.outputs[0]), ['dummy input']);
});

test('stream infer: num_output_tokens of the responses sum to the tokens generated, steps without text included', async () => {
  assert.ok(EMOJI.length >= 2, 'the emoji takes two tokens');
  const maxTokens = 37;
  const streamed = await stream([
    {
      model_name: 'textless_steps',
      inputs: [
        textInput('go'),
        boolInput('stream', true),
        boolInput('return_num_output_tokens', true),
        { name: 'sampling_parameters', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(JSON.stringify({ max_tokens: maxTokens, ignore_eos: true }))] } },
      ],
    },
  ]);
  assert.equal(streamed.error, undefined);
  const counts = streamed.messages.map((m) => Number(m.infer_response.outputs.find((o: any) => o.name === 'num_output_tokens').contents.uint_contents[0]));
  assert.ok(counts.length < maxTokens, 'some steps sent no response of their own');
  assert.equal(counts.reduce((a, b) => a + b, 0), maxTokens);
  const text = streamed.messages.map((m) => texts(m.infer_response.outputs[0])[0]).join('');
  assert.equal(text, await tokenizer.decode(Array.from({ length: maxTokens }, (_, i) => TEXTLESS_CYCLE[i % TEXTLESS_CYCLE.length]!), true));
});

test('stream infer failure ends the RPC with the status', async () => {
  const res = await stream([{ model_name: 'failure', inputs: [textInput('dummy input')] }]);
  assert.equal(res.messages.length, 0);
  assert.equal(res.error?.code, grpc.status.INTERNAL);
  assert.ok(res.error?.details.includes('Failed to generate completions:'));
  const unknown = await stream([{ model_name: 'Tonic', inputs: [textInput('x')] }]);
  assert.equal(unknown.error?.code, grpc.status.NOT_FOUND);
});

test('a client deadline cancels the engine request', async () => {
  longRunning.cancelled = false;
  await new Promise<void>((resolve) => {
    (h.client.ModelInfer as any).call(
      h.client,
      { model_name: 'long_running', inputs: [textInput('x')] },
      new grpc.Metadata(),
      { deadline: Date.now() + 300 },
      (err: grpc.ServiceError | null) => {
        assert.equal(err?.code, grpc.status.DEADLINE_EXCEEDED);
        resolve();
      },
    );
  });
  for (let i = 0; i < 50 && !longRunning.cancelled; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(longRunning.cancelled, true);
});

test('model metadata and config for a completions model', async () => {
  const code = grpc.status.NOT_FOUND;
  await rejects(h.call('ModelMetadata', { name: 'Tonic' }), code, "Model 'Tonic' not found");
  await rejects(h.call('ModelConfig', { name: 'Tonic' }), code);
  const meta = await h.call<any>('ModelMetadata', { name: 'split', version: '1' });
  assert.equal(meta.name, 'split');
  assert.equal(meta.platform, 'dynamo');
  assert.deepEqual(meta.inputs, [
    { name: 'text_input', datatype: 'BYTES', shape: ['1'] },
    { name: 'streaming', datatype: 'BOOL', shape: ['1'] },
  ]);
  assert.deepEqual(meta.outputs, [
    { name: 'text_output', datatype: 'BYTES', shape: ['-1'] },
    { name: 'finish_reason', datatype: 'BYTES', shape: ['-1'] },
  ]);
  const { config } = await h.call<any>('ModelConfig', { name: 'split' });
  assert.equal(config.name, 'split');
  assert.equal(config.backend, 'dynamo');
  assert.deepEqual(config.input.map((i: any) => [i.name, i.data_type, i.dims, i.optional]), [
    ['text_input', 'TYPE_STRING', ['1'], false],
    ['streaming', 'TYPE_BOOL', ['1'], true],
  ]);
  assert.deepEqual(config.output.map((o: any) => [o.name, o.data_type, o.dims]), [
    ['text_output', 'TYPE_STRING', ['-1']],
    ['finish_reason', 'TYPE_STRING', ['-1']],
  ]);
});

test('server metadata, statistics, repository index/unload/load, unimplemented RPCs', async () => {
  const meta = await h.call<any>('ServerMetadata', {});
  assert.equal(meta.name, 'dynamo-ts');
  assert.ok(meta.extensions.includes('model_repository'));

  await h.call('ModelInfer', { model_name: 'split', inputs: [textInput('dummy input')] });
  const { model_stats } = await h.call<any>('ModelStatistics', { name: 'split' });
  assert.equal(model_stats[0].name, 'split');
  assert.ok(Number(model_stats[0].inference_count) >= 1);
  assert.ok(Number(model_stats[0].inference_stats.success.ns) > 0);

  await h.call('RepositoryModelUnload', { model_name: 'split' });
  let index = await h.call<any>('RepositoryIndex', {});
  assert.deepEqual(index.models.find((m: any) => m.name === 'split'), { name: 'split', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' });
  assert.deepEqual(await h.call('ModelReady', { name: 'split' }), { ready: false });
  await rejects(h.call('ModelInfer', { model_name: 'split', inputs: [textInput('x')] }), grpc.status.UNAVAILABLE, 'unloaded');
  await h.call('RepositoryModelLoad', { model_name: 'split' });
  index = await h.call<any>('RepositoryIndex', { ready: true });
  assert.ok(index.models.some((m: any) => m.name === 'split' && m.state === 'READY'));
  await rejects(h.call('RepositoryModelLoad', { model_name: 'ghost' }), grpc.status.NOT_FOUND);

  await rejects(h.call('TraceSetting', {}), grpc.status.UNIMPLEMENTED, 'not supported');
  await rejects(h.call('SystemSharedMemoryRegister', { name: 'x' }), grpc.status.UNIMPLEMENTED, 'shared-memory');
  assert.deepEqual(await h.call('CudaSharedMemoryStatus', {}), { regions: {} });
});
