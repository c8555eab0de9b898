// Inputs checked against the model's config (tensor models) and the completions input table:
// each refusal is INVALID_ARGUMENT naming the input, and nothing reaches the worker.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { encodeModelConfig } from '../../../src/kserve/index.js';
import { boolInput, completionsModel, rawBytes, SplitEngine, startHarness, tensorModel, textInput, type Harness } from './harness.js';

let h: Harness;
let workerCalls = 0;

const batched = encodeModelConfig({
  name: 'batched',
  max_batch_size: 4,
  input: [
    { name: 'INPUT0', data_type: 'TYPE_INT32', dims: [3] },
    { name: 'INPUT1', data_type: 'TYPE_STRING', dims: [-1] },
    { name: 'MASK', data_type: 'TYPE_BOOL', dims: [3], optional: true },
  ],
  output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT32', dims: [3] }],
});

before(async () => {
  const counted = (model: ReturnType<typeof tensorModel>) => ({
    ...model,
    engine: {
      generate: (req: Parameters<typeof model.engine.generate>[0], ctx: Parameters<typeof model.engine.generate>[1]) => {
        workerCalls++;
        return model.engine.generate(req, ctx);
      },
    },
  });
  h = await startHarness({
    completions: [completionsModel('split', new SplitEngine())],
    tensors: [
      counted(tensorModel('batched', { name: '', inputs: [], outputs: [], triton_model_config: batched })),
      counted(
        tensorModel('plain', {
          name: 'plain',
          inputs: [{ name: 'x', data_type: 'Float32', shape: [2, -1] }],
          outputs: [{ name: 'y', data_type: 'Float32', shape: [-1] }],
        }),
      ),
    ],
  });
});
after(() => h.close());

const int32 = (...v: number[]) => {
  const b = Buffer.alloc(4 * v.length);
  v.forEach((x, i) => b.writeInt32LE(x, i * 4));
  return b;
};

const invalid = (includes: string) => (err: grpc.ServiceError) => {
  assert.equal(err.code, grpc.status.INVALID_ARGUMENT, err.details);
  assert.ok(err.details.includes(includes), err.details);
  return true;
};

const input0 = (shape: number[], values: number[]) => ({ name: 'INPUT0', datatype: 'INT32', shape, contents: { int_contents: values } });
const input1 = (shape: number[], ...items: string[]) => ({
  name: 'INPUT1',
  datatype: 'BYTES',
  shape,
  contents: { bytes_contents: items.map((s) => Buffer.from(s)) },
});

test('a request as the config declares it (batch dim first) reaches the worker', async () => {
  const res = await h.call<any>('ModelInfer', { model_name: 'batched', inputs: [input0([2, 3], [1, 2, 3, 4, 5, 6]), input1([2, 1], 'a', 'b')] });
  assert.deepEqual(res.outputs[0].contents.int_contents, [1, 2, 3, 4, 5, 6]);
  const raw = await h.call<any>('ModelInfer', {
    model_name: 'batched',
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 3] },
      { name: 'INPUT1', datatype: 'BYTES', shape: [1, 2] },
    ],
    raw_input_contents: [int32(7, 8, 9), rawBytes('x', 'yz')],
  });
  assert.deepEqual(raw.raw_output_contents[0], int32(7, 8, 9));
  await h.call('ModelInfer', { model_name: 'plain', inputs: [{ name: 'x', datatype: 'FP32', shape: [2, 2], contents: { fp32_contents: [1, 2, 3, 4] } }] });
});

test('config checks: names, required inputs, datatypes, shapes, batch size', async () => {
  const before = workerCalls;
  const cases: [unknown[], string][] = [
    [[input0([1, 3], [1, 2, 3]), input1([1, 1], 'a'), { ...input0([1, 3], [1, 2, 3]), name: 'EXTRA' }], "unexpected inference input 'EXTRA' for model 'batched', allowed inputs are: INPUT0, INPUT1, MASK"],
    [[input0([1, 3], [1, 2, 3])], "expected 2 inputs but got 1 inputs for model 'batched'. Got input(s) ['INPUT0'], but missing required input(s) ['INPUT1']"],
    [[input0([1, 3], [1, 2, 3]), input0([1, 3], [1, 2, 3]), input1([1, 1], 'a')], "input 'INPUT0' is given more than once"],
    [[{ name: 'INPUT0', datatype: 'FP32', shape: [1, 3], contents: { fp32_contents: [1, 2, 3] } }, input1([1, 1], 'a')], "inference input 'INPUT0' data-type is 'FP32', but model 'batched' expects 'INT32'"],
    [[input0([1, 4], [1, 2, 3, 4]), input1([1, 1], 'a')], "unexpected shape for input 'INPUT0' for model 'batched'. Expected [-1,3], got [1,4]"],
    [[input0([3], [1, 2, 3]), input1([1, 1], 'a')], "unexpected shape for input 'INPUT0' for model 'batched'. Expected [-1,3], got [3]"],
    [[input0([5, 3], new Array(15).fill(0)), input1([5, 1], 'a', 'b', 'c', 'd', 'e')], "inference request batch-size must be <= 4 for 'batched' (input 'INPUT0'"],
    [[input0([0, 3], []), input1([0, 1])], "batch-size must be <= 4 for 'batched' (input 'INPUT0' has batch size 0)"],
    [[input0([2, 3], [1, 2, 3, 4, 5, 6]), input1([1, 1], 'a')], "input 'INPUT1' batch size 1 does not match input 'INPUT0' batch size 2"],
    [[input0([1, 3], [1, 2]), input1([1, 1], 'a')], "Tensor 'INPUT0': shape implies 3 elements but data has 2"],
  ];
  for (const [inputs, message] of cases) {
    await assert.rejects(h.call('ModelInfer', { model_name: 'batched', inputs }), invalid(message));
  }
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'plain', inputs: [{ name: 'x', datatype: 'FP32', shape: [3, 1], contents: { fp32_contents: [1, 2, 3] } }] }),
    invalid("unexpected shape for input 'x' for model 'plain'. Expected [2,-1], got [3,1]"),
  );
  assert.equal(workerCalls, before, 'no refused request reaches the worker');
});

test('raw contents: byte sizes, truncated BYTES, contents and raw both given', async () => {
  const inputs = [
    { name: 'INPUT0', datatype: 'INT32', shape: [1, 3] },
    { name: 'INPUT1', datatype: 'BYTES', shape: [1, 2] },
  ];
  const send = (raw: Buffer[], list = inputs) => h.call('ModelInfer', { model_name: 'batched', inputs: list, raw_input_contents: raw });
  await assert.rejects(send([int32(1, 2), rawBytes('a', 'b')]), invalid("Raw input element count for 'INPUT0' does not match expected size, expected 3 elements, got 2"));
  await assert.rejects(send([Buffer.alloc(11), rawBytes('a', 'b')]), invalid("Raw input length must be a multiple of 4 (input 'INPUT0')"));
  await assert.rejects(send([int32(1, 2, 3), rawBytes('a', 'b').subarray(0, 9)]), invalid("Invalid length-prefixed BYTES input for 'INPUT1', length exceeds raw input size"));
  await assert.rejects(send([int32(1, 2, 3), Buffer.concat([rawBytes('a', 'b'), Buffer.from([1, 0])])]), invalid("for 'INPUT1', extra bytes at the end"));
  await assert.rejects(send([int32(1, 2, 3), rawBytes('a')]), invalid("Raw input element count for 'INPUT1' does not match expected size, expected 2 elements, got 1"));
  await assert.rejects(send([int32(1, 2, 3)]), invalid('`raw_input_contents` must be used for all inputs'));
  await assert.rejects(
    send([int32(1, 2, 3), rawBytes('a', 'b')], [inputs[0]!, { ...inputs[1]!, contents: { bytes_contents: [Buffer.from('a'), Buffer.from('b')] } } as never]),
    invalid("contents field must not be specified when using raw_input_contents for 'INPUT1'"),
  );
});

test('completions inputs: element counts, truncated or extra raw elements, contents and raw both given', async () => {
  const call = (inputs: unknown[], raw?: Buffer[]) => h.call('ModelInfer', { model_name: 'split', inputs, raw_input_contents: raw });
  const text = { name: 'text_input', datatype: 'BYTES', shape: [1] };
  await assert.rejects(
    call([{ ...text, contents: { bytes_contents: [Buffer.from('a'), Buffer.from('b')] } }]),
    invalid("'text_input' must contain exactly one element, got 2"),
  );
  await assert.rejects(call([{ ...text, contents: { bytes_contents: [] } }]), invalid("'text_input' must contain exactly one element, got 0"));
  await assert.rejects(call([text], [rawBytes('hello').subarray(0, 6)]), invalid("Invalid length-prefixed BYTES input for 'text_input', length exceeds raw input size"));
  await assert.rejects(call([text], [rawBytes('hello', 'world')]), invalid("Raw input element count for 'text_input' does not match expected size, expected 1 elements, got 2"));
  await assert.rejects(
    call([text, { name: 'streaming', datatype: 'BOOL', shape: [1] }], [rawBytes('hi'), Buffer.from([1, 1])]),
    invalid("Raw input element count for 'streaming' does not match expected size, expected 1 elements, got 2"),
  );
  await assert.rejects(
    call([{ ...textInput('hi'), shape: [1] }, boolInput('streaming', false)], [rawBytes('hi'), Buffer.from([0])]),
    invalid("contents field must not be specified when using raw_input_contents for 'text_input'"),
  );
  const ok = await h.call<any>('ModelInfer', { model_name: 'split', inputs: [text], raw_input_contents: [rawBytes('dummy input')] });
  assert.equal(ok.outputs[0].contents.bytes_contents[0].toString(), 'dummy input');
});
