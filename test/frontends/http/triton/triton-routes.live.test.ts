// Triton's HTTP/REST protocol under /v2, called as curl scripts and Triton clients call it (raw
// HTTP with node fetch), over the same KServe core as the gRPC service of the same frontend.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeModelConfig } from '../../../../src/kserve/index.js';
import type { EngineClient, GenerateContext, LLMEngineOutput, PreprocessedRequest } from '../../../../src/protocols/index.js';
import { eventually } from '../../../support/in-process.js';
import { completionsModel, FailureEngine, rawBytes, SplitEngine, tensorModel, textInput, texts } from '../../grpc/harness.js';
import { getJson, postBinary, postJson, sseEvents, startTriton, type TritonHarness } from './harness.js';

let h: TritonHarness;

before(async () => {
  h = await startTriton({
    completions: [completionsModel('split', new SplitEngine()), completionsModel('org/split', new SplitEngine()), completionsModel('failure', new FailureEngine())],
    tensors: [
      tensorModel('echo'),
      tensorModel('typed', {
        name: 'typed',
        inputs: [
          { name: 'INPUT0', data_type: 'Int32', shape: [-1] },
          { name: 'INPUT1', data_type: 'Bytes', shape: [-1] },
        ],
        outputs: [{ name: 'OUTPUT0', data_type: 'Int32', shape: [-1] }],
      }),
      tensorModel('batched', {
        name: '',
        inputs: [],
        outputs: [],
        triton_model_config: encodeModelConfig({
          name: 'batched',
          platform: 'custom',
          max_batch_size: 4,
          input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2] }],
          output: [{ name: 'x', data_type: 'TYPE_FP32', dims: [2] }],
          model_transaction_policy: { decoupled: true },
        }),
      }),
    ],
  });
});

after(() => h.close());

test('health, server metadata and model readiness', async () => {
  assert.equal((await fetch(`${h.base}/health/live`)).status, 200);
  const ready = await fetch(`${h.base}/health/ready`);
  assert.equal(ready.status, 200);
  assert.equal(await ready.text(), '');
  const server = await getJson(h.base);
  assert.equal(server.status, 200);
  assert.equal(server.body.name, 'dynamo-ts');
  assert.ok(server.body.extensions.includes('binary_tensor_data'));
  assert.ok(server.body.extensions.includes('generate'));
  assert.equal((await fetch(`${h.base}/models/split/ready`)).status, 200);
  assert.equal((await fetch(`${h.base}/models/split/versions/1/ready`)).status, 200);
  assert.equal((await fetch(`${h.base}/models/echo/ready`)).status, 200);
  assert.equal((await fetch(`${h.base}/models/nope/ready`)).status, 400);
  assert.equal((await fetch(`${h.base}/models/org%2Fsplit/ready`)).status, 200);
});

test('model metadata and config, as the gRPC service answers them, with numbers for dims', async () => {
  const meta = await getJson(`${h.base}/models/split`);
  assert.equal(meta.status, 200);
  // The gRPC answer, with its int64 dims as numbers.
  const grpcMeta = await h.call<any>('ModelMetadata', { name: 'split' });
  const numeric = (t: any) => ({ name: t.name, datatype: t.datatype, shape: t.shape.map(Number) });
  assert.deepEqual(meta.body, { ...grpcMeta, inputs: grpcMeta.inputs.map(numeric), outputs: grpcMeta.outputs.map(numeric) });
  assert.deepEqual(meta.body.inputs.map((t: any) => t.name), ['text_input', 'streaming']);
  assert.deepEqual((await getJson(`${h.base}/models/split/versions/1`)).body, meta.body);
  const typed = await getJson(`${h.base}/models/typed`);
  assert.deepEqual(typed.body.inputs, [
    { name: 'INPUT0', datatype: 'INT32', shape: [-1] },
    { name: 'INPUT1', datatype: 'BYTES', shape: [-1] },
  ]);
  const config = await getJson(`${h.base}/models/batched/config`);
  assert.equal(config.status, 200);
  assert.equal(config.body.name, 'batched');
  assert.equal(config.body.max_batch_size, 4);
  assert.deepEqual(config.body.input[0].dims, [2]);
  assert.equal(config.body.input[0].data_type, 'TYPE_FP32');
  assert.equal(config.body.model_transaction_policy.decoupled, true);
  const grpcConfig = await h.call<any>('ModelConfig', { name: 'batched' });
  assert.equal(grpcConfig.config.name, config.body.name);
  assert.equal(grpcConfig.config.platform, config.body.platform);

  const unknown = await getJson(`${h.base}/models/nope`);
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.body, { error: "Model 'nope' not found" });
  const noConfig = await getJson(`${h.base}/models/echo/config`);
  assert.equal(noConfig.status, 400);
  assert.match(noConfig.body.error, /has type Tensor but no model config is provided/);
});

test('infer with JSON tensors: every datatype round-trips, nested data flattens, the id comes back', async () => {
  const inputs = [
    { name: 'b', datatype: 'BOOL', shape: [2], data: [true, false] },
    { name: 'i8', datatype: 'INT8', shape: [2], data: [-128, 127] },
    { name: 'u16', datatype: 'UINT16', shape: [1], data: [65535] },
    { name: 'i32', datatype: 'INT32', shape: [2, 2], data: [[1, 2], [3, 4]] },
    { name: 'i64', datatype: 'INT64', shape: [2], data: [-5, '9007199254740993'] },
    { name: 'u64', datatype: 'UINT64', shape: [1], data: ['18446744073709551615'] },
    { name: 'h', datatype: 'FP16', shape: [3], data: [1.5, -2.25, 65504] },
    { name: 'f32', datatype: 'FP32', shape: [2], data: [0.5, -1.25] },
    { name: 'f64', datatype: 'FP64', shape: [1], data: [0.1] },
    { name: 's', datatype: 'BYTES', shape: [2], data: ['hello', 'wörld'] },
  ];
  const res = await fetch(`${h.base}/models/echo/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'req-7', inputs }),
  });
  assert.equal(res.status, 200);
  const text = await res.text();
  // 64-bit integers keep every digit as JSON numbers.
  assert.match(text, /"data":\[-5,9007199254740993\]/);
  assert.match(text, /"data":\[18446744073709551615\]/);
  const body = JSON.parse(text);
  assert.equal(body.model_name, 'echo');
  assert.equal(body.model_version, '1');
  assert.equal(body.id, 'req-7');
  const byName = Object.fromEntries(body.outputs.map((o: any) => [o.name, o]));
  assert.deepEqual(byName.b, { name: 'b', datatype: 'BOOL', shape: [2], data: [true, false] });
  assert.deepEqual(byName.i8.data, [-128, 127]);
  assert.deepEqual(byName.u16.data, [65535]);
  assert.deepEqual(byName.i32, { name: 'i32', datatype: 'INT32', shape: [2, 2], data: [1, 2, 3, 4] });
  assert.deepEqual(byName.h.data, [1.5, -2.25, 65504]);
  assert.deepEqual(byName.f32.data, [0.5, -1.25]);
  assert.deepEqual(byName.f64.data, [0.1]);
  assert.deepEqual(byName.s.data, ['hello', 'wörld']);
});

test('infer parameters go to the worker and come back; outputs without parameters have none', async () => {
  const res = await postJson(`${h.base}/models/echo/infer`, {
    parameters: { flag: true, count: 8, ratio: 2.5, label: 'x' },
    inputs: [{ name: 'x', datatype: 'INT32', shape: [1], data: [1], parameters: { tag: 'in' } }],
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.parameters, { flag: true, count: 8, ratio: 2.5, label: 'x' });
  assert.deepEqual(res.body.outputs[0].parameters, { tag: 'in' });
});

test('listed outputs are the ones returned', async () => {
  const res = await postJson(`${h.base}/models/echo/infer`, {
    inputs: [
      { name: 'a', datatype: 'INT32', shape: [1], data: [1] },
      { name: 'b', datatype: 'INT32', shape: [1], data: [2] },
    ],
    outputs: [{ name: 'b' }],
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.outputs.map((o: any) => [o.name, o.data]), [['b', [2]]]);
  const text = await postJson(`${h.base}/models/split/infer`, {
    inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['hi'] }],
    outputs: [{ name: 'text_output' }],
  });
  assert.deepEqual(text.body.outputs.map((o: any) => o.name), ['text_output']);
});

test('HTTP infer and gRPC ModelInfer give the same outputs for the same model and inputs', async () => {
  const values = Array.from({ length: 16 }, (_, i) => i);
  const http = await postJson(`${h.base}/models/typed/infer`, {
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [16], data: values },
      { name: 'INPUT1', datatype: 'BYTES', shape: [16], data: values.map(String) },
    ],
  });
  assert.equal(http.status, 200);
  const grpc = await h.call<any>('ModelInfer', {
    model_name: 'typed',
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [16], contents: { int_contents: values } },
      { name: 'INPUT1', datatype: 'BYTES', shape: [16], contents: { bytes_contents: values.map((v) => Buffer.from(String(v))) } },
    ],
  });
  assert.equal(http.body.outputs.length, grpc.outputs.length);
  for (const [i, out] of grpc.outputs.entries()) {
    const mine = http.body.outputs[i];
    assert.equal(mine.name, out.name);
    assert.equal(mine.datatype, out.datatype);
    assert.deepEqual(mine.shape, out.shape.map(Number));
    const grpcData = out.datatype === 'BYTES' ? texts(out) : out.contents.int_contents;
    assert.deepEqual(mine.data, grpcData);
  }
  // A completions model: the same text and finish reason both ways.
  const prompt = 'the same prompt';
  const httpText = await postJson(`${h.base}/models/split/infer`, {
    id: 'x1',
    inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: [prompt] }],
  });
  const grpcText = await h.call<any>('ModelInfer', { model_name: 'split', id: 'x1', inputs: [textInput(prompt)] });
  assert.equal(httpText.status, 200);
  assert.deepEqual(httpText.body.outputs.map((o: any) => o.data), grpcText.outputs.map((o: any) => texts(o)));
  assert.deepEqual(httpText.body.outputs[0].data, [prompt]);
  assert.equal(httpText.body.id, 'x1');
});

test('binary data: inputs after the JSON part, outputs as binary when asked, byte-exact', async () => {
  const ints = Buffer.alloc(16);
  [1, -2, 3, 2147483647].forEach((v, i) => ints.writeInt32LE(v, i * 4));
  const strings = rawBytes('a', 'bc');
  const half = Buffer.from([0x00, 0x3e, 0x80, 0xc0]);
  const json = {
    inputs: [
      { name: 'ints', datatype: 'INT32', shape: [4], parameters: { binary_data_size: ints.byteLength } },
      { name: 'strs', datatype: 'BYTES', shape: [2], parameters: { binary_data_size: strings.byteLength } },
      { name: 'half', datatype: 'FP16', shape: [2], parameters: { binary_data_size: half.byteLength } },
      { name: 'json', datatype: 'INT32', shape: [1], data: [42] },
    ],
    outputs: [
      { name: 'ints', parameters: { binary_data: true } },
      { name: 'strs', parameters: { binary_data: true } },
      { name: 'half', parameters: { binary_data: true } },
      { name: 'json', parameters: { binary_data: false } },
    ],
  };
  const res = await postBinary(`${h.base}/models/echo/infer`, json, [ints, strings, half]);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.equal(res.headers.get('content-type'), 'application/octet-stream');
  const outs = res.json.outputs;
  assert.deepEqual(outs.map((o: any) => o.parameters?.binary_data_size), [16, strings.byteLength, 4, undefined]);
  assert.equal(outs[0].data, undefined);
  assert.deepEqual(outs[3].data, [42]);
  assert.deepEqual(res.binary, Buffer.concat([ints, strings, half]));

  // binary_data_output: every output binary; JSON inputs come back as their raw bytes.
  const all = await postBinary(`${h.base}/models/echo/infer`, {
    parameters: { binary_data_output: true },
    inputs: [{ name: 'f', datatype: 'FP32', shape: [2], data: [1, 2] }],
  }, []);
  const expected = Buffer.alloc(8);
  expected.writeFloatLE(1, 0);
  expected.writeFloatLE(2, 4);
  assert.deepEqual(all.binary, expected);
  assert.equal(all.json.outputs[0].parameters.binary_data_size, 8);

  // gRPC raw inputs give the same bytes back.
  const grpc = await h.call<any>('ModelInfer', {
    model_name: 'echo',
    inputs: [{ name: 'ints', datatype: 'INT32', shape: [4] }],
    raw_input_contents: [ints],
  });
  assert.deepEqual(Buffer.from(grpc.raw_output_contents[0]), res.binary.subarray(0, 16));
});

test('infer errors read {"error": ...} with the status and name the field', async () => {
  const cases: [string, unknown, number, RegExp][] = [
    ['echo', { inputs: [{ name: 'x', datatype: 'INT99', shape: [1], data: [1] }] }, 400, /input 'x': unknown datatype "INT99"/],
    ['echo', { inputs: [{ name: 'x', datatype: 'INT32', shape: [3], data: [1, 2] }] }, 400, /shape \[3\] holds 3 elements but 'data' has 2/],
    ['echo', { inputs: [{ name: 'x', datatype: 'INT8', shape: [1], data: [300] }] }, 400, /'data' element 0 must be an integer in \[-128, 127\]/],
    ['echo', { inputs: [{ name: 'x', datatype: 'BYTES', shape: [1], data: [5] }] }, 400, /must be a string for datatype BYTES/],
    ['echo', { inputs: [{ name: 'x', datatype: 'INT32', shape: [1] }] }, 400, /input 'x' needs 'data'/],
    ['echo', { inputs: 'nope' }, 400, /'inputs' must be an array/],
    ['echo', { inputs: [{ name: 'x', datatype: 'INT32', shape: [-1], data: [] }] }, 400, /'shape' must be an array of non-negative integers/],
    ['typed', { inputs: [{ name: 'INPUT9', datatype: 'INT32', shape: [1], data: [1] }] }, 400, /unexpected inference input 'INPUT9'/],
    ['nope', { inputs: [] }, 404, /Model 'nope' not found/],
    ['split', { inputs: [] }, 400, /Missing required input: 'text_input'/],
    ['split', { inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['hi'] }, { name: 'stream', datatype: 'BOOL', shape: [1], data: [true] }] }, 400, /Streaming is not supported for this endpoint/],
    ['failure', { inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['hi'] }] }, 500, /Failed to generate completions: Always fail/],
  ];
  for (const [model, body, status, message] of cases) {
    const res = await postJson(`${h.base}/models/${model}/infer`, body);
    assert.equal(res.status, status, `${model} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.deepEqual(Object.keys(res.body), ['error']);
    assert.match(res.body.error, message);
  }
  const badJson = await getJson(`${h.base}/models/echo/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"inputs": [' });
  assert.equal(badJson.status, 400);
  assert.ok(typeof badJson.body.error === 'string');
  const badHeader = await getJson(`${h.base}/models/echo/infer`, {
    method: 'POST',
    headers: { 'inference-header-content-length': '999', 'content-type': 'application/octet-stream' },
    body: '{"inputs": []}',
  });
  assert.equal(badHeader.status, 400);
  assert.match(badHeader.body.error, /Inference-Header-Content-Length/);
  const short = await postBinary(`${h.base}/models/echo/infer`, { inputs: [{ name: 'x', datatype: 'INT32', shape: [2], parameters: { binary_data_size: 8 } }] }, [Buffer.alloc(4)]);
  assert.equal(short.status, 400);
  assert.match(short.json.error, /'binary_data_size' is 8 but only 4 bytes/);
  const extra = await postBinary(`${h.base}/models/echo/infer`, { inputs: [{ name: 'x', datatype: 'INT32', shape: [1], data: [1] }] }, [Buffer.alloc(4)]);
  assert.equal(extra.status, 400);
  assert.match(extra.json.error, /4 bytes of binary data that no input/);
  const gzip = await getJson(`${h.base}/models/echo/infer`, { method: 'POST', headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' }, body: 'x' });
  assert.equal(gzip.status, 415);
  assert.match(gzip.body.error, /Content-Encoding 'gzip' is not supported/);
  const wrongMethod = await getJson(`${h.base}/models/echo/infer`);
  assert.equal(wrongMethod.status, 405);
  const unknownRoute = await getJson(`${h.base}/nothing/here`);
  assert.equal(unknownRoute.status, 404);
  assert.match(unknownRoute.body.error, /Route not found/);
});

test('batched model: declared shapes are checked with the batch dimension', async () => {
  const ok = await postJson(`${h.base}/models/batched/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 2], data: [[1, 2]] }] });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.outputs[0].data, [1, 2]);
  const bad = await postJson(`${h.base}/models/batched/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [2], data: [1, 2] }] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /unexpected shape for input 'x'/);
  // generate adds the batch dimension itself.
  const gen = await postJson(`${h.base}/models/batched/generate`, { x: [3, 4] });
  assert.equal(gen.status, 200, JSON.stringify(gen.body));
  assert.deepEqual(gen.body.x, [3, 4]);
});

test('generate: text_input in, text_output out; sampling parameters and exclude_input_in_output', async () => {
  const res = await postJson(`${h.base}/models/split/generate`, { text_input: 'one two three', parameters: { max_tokens: 50 } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.model_name, 'split');
  assert.equal(res.body.text_output, 'one two three');
  assert.equal(res.body.finish_reason, 'stop');
  // Keys that are not inputs are parameters too: max_tokens 2 cuts the echo short.
  const short = await postJson(`${h.base}/models/split/generate`, { text_input: 'one two three', max_tokens: 2 });
  assert.equal(short.body.finish_reason, 'length');
  assert.ok(short.body.text_output.length < 'one two three'.length);
  const sampling = await postJson(`${h.base}/models/split/generate`, { text_input: 'one two three', sampling_parameters: { max_tokens: 2 } });
  assert.equal(sampling.body.text_output, short.body.text_output);
  const echoed = await postJson(`${h.base}/models/split/generate`, { text_input: 'abc', exclude_input_in_output: false });
  assert.equal(echoed.body.text_output, 'abcabc');
  const counted = await postJson(`${h.base}/models/split/generate`, { text_input: 'abc', return_num_input_tokens: true, return_num_output_tokens: true });
  assert.ok(counted.body.num_input_tokens > 0);
  assert.equal(counted.body.num_output_tokens, counted.body.num_input_tokens);
  const streamed = await postJson(`${h.base}/models/split/generate`, { text_input: 'abc', stream: true });
  assert.equal(streamed.status, 400);
  assert.match(streamed.body.error, /Streaming is not supported/);
  const unknown = await postJson(`${h.base}/models/nope/generate`, { text_input: 'abc' });
  assert.equal(unknown.status, 404);
  const missing = await postJson(`${h.base}/models/split/generate`, { prompt: 'abc' });
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /Missing required input: 'text_input'/);
  const slash = await postJson(`${h.base}/models/org%2Fsplit/generate`, { text_input: 'hi' });
  assert.equal(slash.status, 200);
  assert.equal(slash.body.model_name, 'org/split');
});

test('generate_stream: one event per step whose texts join to the unary answer; errors', async () => {
  const prompt = 'one two three';
  const stream = await sseEvents(`${h.base}/models/split/generate_stream`, { text_input: prompt, id: 's1' });
  assert.equal(stream.status, 200);
  assert.match(stream.contentType ?? '', /text\/event-stream/);
  assert.ok(stream.events.length > 1);
  assert.equal(stream.events.map((e) => e.text_output).join(''), prompt);
  assert.ok(stream.events.every((e) => e.model_name === 'split' && e.id === 's1'));
  assert.equal(stream.events.at(-1).finish_reason, 'stop');
  const echo = await sseEvents(`${h.base}/models/split/generate_stream`, { text_input: prompt, exclude_input_in_output: false });
  assert.equal(echo.status, 400);
  const failed = await sseEvents(`${h.base}/models/failure/generate_stream`, { text_input: prompt });
  assert.equal(failed.status, 500);
  const bad = await fetch(`${h.base}/models/failure/generate_stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text_input: prompt }) });
  assert.match((await bad.json()).error, /Failed to generate completions/);
  // A tensor model that answers several times streams each answer.
  const repeat = await sseEvents(`${h.base}/models/echo/generate_stream`, { repeat: 3 });
  assert.equal(repeat.status, 200, JSON.stringify(repeat.events));
});

test('statistics count HTTP and gRPC requests together; repository index, unload and load', async () => {
  const before = (await getJson(`${h.base}/models/typed/stats`)).body.model_stats[0];
  await postJson(`${h.base}/models/typed/infer`, { inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1], data: [1] }, { name: 'INPUT1', datatype: 'BYTES', shape: [1], data: ['a'] }] });
  await h.call('ModelInfer', { model_name: 'typed', inputs: [{ name: 'INPUT0', datatype: 'INT32', shape: [1], contents: { int_contents: [1] } }, { name: 'INPUT1', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from('a')] } }] });
  const stats = await getJson(`${h.base}/models/typed/stats`);
  assert.equal(stats.status, 200);
  const after = stats.body.model_stats[0];
  assert.equal(after.name, 'typed');
  assert.equal(after.inference_count, before.inference_count + 2);
  assert.equal(typeof after.inference_stats.success.ns, 'number');
  const metrics = await (await fetch(h.base.replace(/\/v2$/, '/metrics'))).text();
  assert.match(metrics, /dynamo_frontend_requests_total\{[^}]*model="typed"[^}]*endpoint="tensor"[^}]*\} [1-9]/);
  const all = await getJson(`${h.base}/models/stats`);
  assert.ok(all.body.model_stats.some((s: any) => s.name === 'split'));
  assert.equal((await getJson(`${h.base}/models/nope/stats`)).status, 404);

  const index = await postJson(`${h.base}/repository/index`, {});
  assert.equal(index.status, 200);
  assert.deepEqual(index.body.find((m: any) => m.name === 'echo'), { name: 'echo', version: '1', state: 'READY', reason: '' });
  const emptyBody = await fetch(`${h.base}/repository/index`, { method: 'POST' });
  assert.equal(emptyBody.status, 200);

  const unload = await fetch(`${h.base}/repository/models/echo/unload`, { method: 'POST' });
  assert.equal(unload.status, 200);
  assert.equal((await fetch(`${h.base}/models/echo/ready`)).status, 400);
  const unavailable = await postJson(`${h.base}/models/echo/infer`, { inputs: [{ name: 'x', datatype: 'INT32', shape: [1], data: [1] }] });
  assert.equal(unavailable.status, 503);
  assert.match(unavailable.body.error, /unloaded/);
  const readyOnly = await postJson(`${h.base}/repository/index`, { ready: true });
  assert.ok(!readyOnly.body.some((m: any) => m.name === 'echo'));
  // The gRPC service sees the same unload.
  assert.equal((await h.call<any>('ModelReady', { name: 'echo' })).ready, false);
  const load = await fetch(`${h.base}/repository/models/echo/load`, { method: 'POST' });
  assert.equal(load.status, 200);
  assert.equal((await fetch(`${h.base}/models/echo/ready`)).status, 200);
  const loadUnknown = await getJson(`${h.base}/repository/models/nope/load`, { method: 'POST' });
  assert.equal(loadUnknown.status, 404);
  assert.match(loadUnknown.body.error, /nope/);
});

/** Waits until cancelled; says when a request arrived and whether it saw the cancellation. */
class WaitingEngine implements EngineClient {
  cancelled = 0;
  private arrived: (() => void) | undefined;
  readonly started = () => new Promise<void>((resolve) => (this.arrived = resolve));
  // eslint-disable-next-line require-yield
  async *generate(_req: PreprocessedRequest, ctx: GenerateContext): AsyncIterable<LLMEngineOutput> {
    this.arrived?.();
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    this.cancelled++;
  }
}

test('a client that goes away cancels the engine request (infer, generate, generate_stream)', async () => {
  const engine = new WaitingEngine();
  h.models.add(completionsModel('waiting', engine));
  const bodies: [string, unknown][] = [
    ['infer', { inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['hi'] }] }],
    ['generate', { text_input: 'hi' }],
    ['generate_stream', { text_input: 'hi' }],
  ];
  for (const [route, body] of bodies) {
    const before = engine.cancelled;
    const started = engine.started();
    const abort = new AbortController();
    const res = fetch(`${h.base}/models/waiting/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: abort.signal });
    res.catch(() => undefined);
    await started;
    abort.abort();
    await eventually(() => engine.cancelled > before, 60_000, `${route} cancelled`);
  }
});
