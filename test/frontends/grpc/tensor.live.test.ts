// Tensor models: upstream's Rust tensor tests and the Python echo-worker tests (reference/kserve.md §9).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../support/processes.js';
import { encodeModelConfig } from '../../../src/kserve/index.js';
import type { TensorModel } from '../../../src/protocols/index.js';
import { startHarness, tensorModel, textInput, rawBytes, type Harness } from './harness.js';

let h: Harness;

before(async () => {
  const example = (await import(pathToFileURL(path.join(REPO_ROOT, 'examples/echo-tensor-worker.mjs')).href)) as {
    echoTensorModel(): TensorModel;
  };
  h = await startHarness({
    tensors: [
      tensorModel('noconfig'),
      tensorModel('tensor', {
        name: 'tensor',
        inputs: [{ name: 'input', data_type: 'Bytes', shape: [1] }],
        outputs: [{ name: 'output', data_type: 'Bool', shape: [-1] }],
      }),
      tensorModel('badtriton', { name: '', inputs: [], outputs: [], triton_model_config: new Uint8Array([1, 2, 3, 4, 5]) }),
      example.echoTensorModel(),
    ],
    metricsPort: 0,
  });
});
after(() => h.close());

const code = (c: number, includes?: string) => (err: grpc.ServiceError) => {
  assert.equal(err.code, c, err.details);
  if (includes) assert.ok(err.details.includes(includes), err.details);
  return true;
};

test('metadata/config: missing config, Dynamo config, Triton config, undecodable bytes', async () => {
  await assert.rejects(h.call('ModelMetadata', { name: 'noconfig' }), code(grpc.status.INVALID_ARGUMENT, 'no model config is provided'));
  await assert.rejects(h.call('ModelConfig', { name: 'noconfig' }), code(grpc.status.INVALID_ARGUMENT, 'no model config is provided'));
  const meta = await h.call<any>('ModelMetadata', { name: 'tensor' });
  assert.deepEqual(meta.inputs, [{ name: 'input', datatype: 'BYTES', shape: ['1'] }]);
  assert.deepEqual(meta.outputs, [{ name: 'output', datatype: 'BOOL', shape: ['-1'] }]);
  const { config } = await h.call<any>('ModelConfig', { name: 'echo' });
  assert.equal(config.model_transaction_policy.decoupled, true);
  assert.equal(config.platform, 'custom');
  assert.equal((await h.call<any>('ModelMetadata', { name: 'echo' })).inputs[1].datatype, 'TYPE_INT32');
  await assert.rejects(h.call('ModelConfig', { name: 'badtriton' }), code(grpc.status.INVALID_ARGUMENT, 'failed to decode Protobuf message'));
  assert.ok(encodeModelConfig({ name: 'x' }).length > 0);
});

test('typed echo (model without config: nothing declared to check against) keeps contents; repeat > 1 is an error for ModelInfer', async () => {
  const res = await h.call<any>('ModelInfer', { model_name: 'noconfig', id: '1234', inputs: [textInput('dummy input')] });
  assert.equal(res.id, '1234');
  assert.equal(res.model_version, '1');
  assert.equal(res.outputs[0].datatype, 'BYTES');
  assert.deepEqual(res.outputs[0].contents.bytes_contents.map(String), ['dummy input']);
  assert.deepEqual(res.raw_output_contents, []);
  const repeat = { name: 'repeat', datatype: 'INT32', shape: [1], contents: { int_contents: [2] } };
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'noconfig', inputs: [textInput('x'), repeat] }),
    code(grpc.status.INTERNAL, 'Multiple responses in non-streaming mode'),
  );
  const uint = await h.call<any>('ModelInfer', {
    model_name: 'noconfig',
    inputs: [{ name: 'u', datatype: 'UINT32', shape: [3], contents: { uint_contents: [42, 43, 44] } }],
  });
  assert.deepEqual(uint.outputs[0].contents.uint_contents, [42, 43, 44]);
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'noconfig', inputs: [{ name: 'u', datatype: 'UINT32', shape: [1], contents: { uint_contents: [1, 2, 3] } }] }),
    code(grpc.status.INVALID_ARGUMENT, 'shape implies 1 elements but data has 3'),
  );
});

test('raw inputs come back raw, byte-exact, for every fixed-width type and FP16', async () => {
  const fp16 = Buffer.from('003e80c0404200c40038405600acff7b', 'hex');
  const int64 = Buffer.alloc(16);
  int64.writeBigInt64LE(-9007199254740993n, 0);
  int64.writeBigInt64LE(5n, 8);
  const inputs = [
    { name: 'h', datatype: 'FP16', shape: [8] },
    { name: 'b', datatype: 'BF16', shape: [4] },
    { name: 'l', datatype: 'INT64', shape: [2] },
    { name: 's', datatype: 'BYTES', shape: [2] },
    { name: 'o', datatype: 'BOOL', shape: [3] },
  ];
  const raw = [fp16, Buffer.from('c03f10c0484080c0', 'hex'), int64, rawBytes('0', '15'), Buffer.from([1, 0, 1])];
  const res = await h.call<any>('ModelInfer', { model_name: 'echo', inputs, raw_input_contents: raw });
  assert.deepEqual(res.outputs.map((o: any) => o.datatype), ['FP16', 'BF16', 'INT64', 'BYTES', 'BOOL']);
  res.raw_output_contents.forEach((b: Buffer, i: number) => assert.deepEqual(b, raw[i]));
  assert.equal(res.parameters.processed.bool_param, true);
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 'h', datatype: 'FP16', shape: [1], contents: { fp32_contents: [1] } }] }),
    code(grpc.status.INVALID_ARGUMENT, '`raw_input_contents`'),
  );
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'echo', inputs: [{ name: 's', datatype: 'BYTES', shape: [1] }], raw_input_contents: [Buffer.from([9, 0, 0, 0, 1])] }),
    code(grpc.status.INVALID_ARGUMENT, 'length exceeds raw input size'),
  );
});

const fp32Input = { name: 'INPUT', datatype: 'FP32', shape: [4], contents: { fp32_contents: [1, 2, 3, 4] } };

test('echo worker failures: malformed response, exception (unary)', async () => {
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'echo', inputs: [fp32Input], parameters: { malformed_response: { bool_param: true } } }),
    code(grpc.status.INTERNAL, 'missing field `data_type`'),
  );
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'echo', inputs: [fp32Input], parameters: { raise_exception: { bool_param: true } } }),
    code(grpc.status.INTERNAL, 'Intentional exception'),
  );
  const params = await h.call<any>('ModelInfer', {
    model_name: 'echo',
    inputs: [fp32Input],
    parameters: { int_param: { int64_param: 8 }, str_param: { string_param: 'custom' } },
  });
  assert.equal(params.parameters.int_param.int64_param, '8');
  assert.equal(params.parameters.str_param.string_param, 'custom');
  await assert.rejects(
    h.call('ModelInfer', { model_name: 'echo', inputs: [fp32Input], parameters: { empty: {} } }),
    code(grpc.status.INVALID_ARGUMENT, "Parameter 'empty' has no value"),
  );
});

test('stream: errors arrive as error_message and the stream continues; repeat yields several', async () => {
  const call = (h.client.ModelStreamInfer as () => grpc.ClientDuplexStream<unknown, any>).call(h.client);
  const messages: any[] = [];
  const done = new Promise<void>((resolve, reject) => {
    call.on('data', (m) => messages.push(m));
    call.on('end', resolve);
    call.on('error', reject);
  });
  for (const flag of ['malformed_response', 'raise_exception', 'data_mismatch']) {
    call.write({ model_name: 'echo', inputs: [fp32Input], parameters: { [flag]: { bool_param: true } } });
  }
  call.write({
    model_name: 'noconfig',
    id: '1234',
    inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }, { name: 'repeat', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [rawBytes('dummy input'), Buffer.from([2, 0, 0, 0])],
  });
  call.end();
  await done;
  assert.equal(messages.length, 5);
  assert.ok(messages[0].error_message.includes('missing field `data_type`'));
  assert.ok(messages[1].error_message.includes('Intentional exception'));
  assert.ok(messages[2].error_message.startsWith('Failed to convert response: Invalid NvCreateTensorResponse'));
  assert.ok(messages[2].error_message.includes('shape implies'));
  for (const m of messages.slice(3)) {
    assert.equal(m.error_message, '');
    assert.equal(m.infer_response.id, '1234');
    assert.deepEqual(m.infer_response.raw_output_contents, [rawBytes('dummy input'), Buffer.from([2, 0, 0, 0])]);
  }
});

test('metrics endpoint counts tensor requests', async () => {
  const text = await (await fetch(`http://127.0.0.1:${h.frontend.metricsPort}/metrics`)).text();
  assert.match(text, /dynamo_frontend_requests_total\{[^}]*model="noconfig"[^}]*endpoint="tensor"/);
  assert.match(text, /dynamo_frontend_inflight_requests/);
  assert.match(text, /grpc_server_handled_total\{[^}]*grpc_method="ModelInfer"/);
  assert.match(text, /grpc_server_msg_sent_total/);
  assert.equal((await fetch(`http://127.0.0.1:${h.frontend.metricsPort}/live`)).status, 200);
});
