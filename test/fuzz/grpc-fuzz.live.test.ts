// Hostile calls to every GRPCInferenceService method, from a seeded generator: bad tensors
// (shape/data mismatch, truncated raw contents, wrong datatypes, inputs not in the config), hostile
// parameters and sampling JSON, prototype keys, huge strings, and bytes that are not a protobuf
// message at all. No call may end INTERNAL/UNKNOWN/DATA_LOSS/UNAVAILABLE or go unanswered, an
// INVALID_ARGUMENT names the input or parameter it refuses, and after every batch a valid
// ModelInfer still works. FUZZ_SEED and FUZZ_PER_METHOD change the run.

import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../../src/frontends/grpc/index.js';
import { encodeModelConfig } from '../../src/kserve/index.js';
import { completionsModel, rawBytes, SplitEngine, startHarness, tensorModel, textInput, type Client, type Harness } from '../frontends/grpc/harness.js';
import { FuzzTally, HOSTILE_VALUES, INVALID_UTF8, nested, Rng } from './hostile.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const PER_METHOD = Number(process.env.FUZZ_PER_METHOD ?? 320);
const BATCH = 50;
const CONCURRENCY = 8;
const ANSWER_BOUND_MS = 30_000;
/** Statuses that mean the server failed, not the request. */
const SERVER_FAULTS = new Set([grpc.status.INTERNAL, grpc.status.UNKNOWN, grpc.status.DATA_LOSS, grpc.status.UNAVAILABLE]);

const config = encodeModelConfig({
  name: 'batched',
  max_batch_size: 4,
  input: [
    { name: 'INPUT0', data_type: 'TYPE_INT32', dims: [3] },
    { name: 'INPUT1', data_type: 'TYPE_STRING', dims: [-1] },
    { name: 'HALF', data_type: 'TYPE_FP16', dims: [2], optional: true },
  ],
  output: [{ name: 'OUTPUT0', data_type: 'TYPE_INT32', dims: [3] }],
});

let h: Harness;
let raw: Client;

before(async () => {
  h = await startHarness({
    completions: [completionsModel('split', new SplitEngine())],
    tensors: [
      tensorModel('batched', { name: '', inputs: [], outputs: [], triton_model_config: config }),
      tensorModel('plain', { name: 'plain', inputs: [{ name: 'x', data_type: 'Float32', shape: [-1] }], outputs: [] }),
      tensorModel('noconfig'),
    ],
  });
  // A client that sends bytes as they are: for messages that are not protobuf at all.
  const identity = Object.fromEntries(
    Object.entries(loadProtos().inference).map(([name, m]) => [name, { ...m, requestSerialize: (b: Buffer) => b }]),
  );
  const Ctor = grpc.makeGenericClientConstructor(identity, 'RawInference');
  raw = new Ctor(`127.0.0.1:${h.frontend.grpcPort}`, grpc.credentials.createInsecure()) as unknown as Client;
});
after(async () => {
  raw.close();
  await h.close();
});

const DATATYPES = ['BOOL', 'UINT8', 'INT32', 'INT64', 'FP16', 'BF16', 'FP32', 'FP64', 'BYTES', 'int32', 'INT128', '', 'TYPE_INT32'];
const NAMES = ['INPUT0', 'INPUT1', 'HALF', 'x', 'text_input', 'streaming', 'stream', 'sampling_parameters', 'exclude_input_in_output', 'return_num_input_tokens', '__proto__', 'constructor', 'unknown', ''];
const MODELS = ['batched', 'plain', 'noconfig', 'split', 'split', 'batched', 'nope', '', '__proto__', 'x'.repeat(10_000)];
const DIMS = [0, 1, 2, 3, 4, 5, -1, -7, 2 ** 31, '9223372036854775807', '-9223372036854775808'];

function randomShape(rng: Rng): (number | string)[] {
  return Array.from({ length: rng.int(4) }, () => rng.pick(DIMS));
}

function randomContents(rng: Rng): Record<string, unknown> {
  const n = rng.int(7);
  const field = rng.pick(['bool_contents', 'int_contents', 'int64_contents', 'uint_contents', 'uint64_contents', 'fp32_contents', 'fp64_contents', 'bytes_contents']);
  const value = (): unknown => {
    switch (field) {
      case 'bool_contents':
        return rng.int(2) === 1;
      case 'int64_contents':
      case 'uint64_contents':
        return rng.pick(['0', '-1', '9223372036854775807', '18446744073709551615', '42']);
      case 'bytes_contents':
        return rng.pick([Buffer.from('ok'), Buffer.concat([Buffer.from('a'), rng.pick(INVALID_UTF8)]), Buffer.alloc(0)]);
      case 'fp32_contents':
      case 'fp64_contents':
        return rng.pick([0, 1.5, -1e38, NaN, Infinity]);
      default:
        return rng.pick([0, 1, -1, 2147483647, -2147483648]);
    }
  };
  return { [field]: Array.from({ length: n }, value) };
}

function randomRaw(rng: Rng): Buffer {
  switch (rng.int(6)) {
    case 0:
      return Buffer.alloc(rng.int(17));
    case 1:
      return rawBytes('a', 'bc').subarray(0, rng.int(11));
    case 2: {
      const b = Buffer.alloc(8);
      b.writeUInt32LE(0xffffffff, 0);
      return b;
    }
    case 3:
      return rawBytes(...Array.from({ length: rng.int(4) }, () => 'x'.repeat(rng.int(5))));
    case 4:
      return Buffer.concat([Buffer.from([2, 0, 0, 0, 0x68]), rng.pick(INVALID_UTF8)]);
    default:
      return Buffer.alloc(12, 1);
  }
}

function randomParameter(rng: Rng): Record<string, unknown> {
  switch (rng.int(6)) {
    case 0:
      return {};
    case 1:
      return { int64_param: rng.pick(['9223372036854775807', '-9223372036854775808', '0', '-1']) };
    case 2:
      return { double_param: rng.pick([NaN, Infinity, -Infinity, 1e308, -0.5]) };
    case 3:
      return { string_param: rng.pick(['NaN', '', '[', '["a",', 'x'.repeat(100_000), '1e400']) };
    case 4:
      return { uint64_param: '18446744073709551615' };
    default:
      return { bool_param: true };
  }
}

const SAMPLING_JSON = () => [
  '{',
  '[]',
  'null',
  '{"max_tokens": "NaN"}',
  '{"temperature": 1e400}',
  '{"__proto__": {"max_tokens": 1}}',
  '{"constructor": {"prototype": {"x": 1}}}',
  JSON.stringify({ stop: nested(500, 'x', 'array') }),
  JSON.stringify({ max_tokens: 2 ** 53 }),
  JSON.stringify({ n: -1 }),
  JSON.stringify({ stop: 'x'.repeat(100_000) }),
  JSON.stringify({ seed: 1e30, top_k: -5 }),
];

/** One hostile ModelInferRequest (as an object grpc-js encodes). */
function hostileInfer(rng: Rng): { kind: string; request: Record<string, unknown> } {
  const model = rng.pick(MODELS);
  const base = (): Record<string, unknown> => ({ model_name: model, id: `fuzz-${rng.int(1e6)}` });
  switch (rng.int(7)) {
    case 0: {
      const inputs = Array.from({ length: 1 + rng.int(3) }, () => ({
        name: rng.pick(NAMES),
        datatype: rng.pick(DATATYPES),
        shape: randomShape(rng),
        contents: randomContents(rng),
      }));
      return { kind: 'typed-tensor', request: { ...base(), inputs } };
    }
    case 1: {
      const inputs = Array.from({ length: 1 + rng.int(3) }, () => ({ name: rng.pick(NAMES), datatype: rng.pick(DATATYPES), shape: randomShape(rng) }));
      const count = rng.int(4) === 0 ? inputs.length + 1 : inputs.length;
      return { kind: 'raw-tensor', request: { ...base(), inputs, raw_input_contents: Array.from({ length: count }, () => randomRaw(rng)) } };
    }
    case 2: {
      const input = { name: 'INPUT0', datatype: 'INT32', shape: [1, 3], contents: { int_contents: [1, 2, 3] } };
      return { kind: 'raw-and-contents', request: { ...base(), inputs: [input], raw_input_contents: [randomRaw(rng)] } };
    }
    case 3: {
      const params = { [rng.pick(['max_tokens', 'temperature', 'seed', 'stop', '__proto__', 'constructor', 'n', 'top_k'])]: randomParameter(rng) };
      return { kind: 'parameters', request: { ...base(), model_name: rng.pick(['split', 'batched']), inputs: [textInput('hi')], parameters: params } };
    }
    case 4: {
      const json = rng.pick(SAMPLING_JSON());
      const sampling = { name: 'sampling_parameters', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(json)] } };
      return { kind: 'sampling-json', request: { ...base(), model_name: 'split', inputs: [textInput('hi'), sampling] } };
    }
    case 5: {
      const text = Buffer.concat([Buffer.from('hi '), rng.pick(INVALID_UTF8), Buffer.from('x'.repeat(rng.pick([0, 1000, 50_000])))]);
      const input = { name: 'text_input', datatype: rng.pick(['BYTES', 'BYTES', 'BOOL']), shape: rng.pick([[1], [1, 1], [2], []]) };
      return rng.int(2) === 0
        ? { kind: 'text-input', request: { ...base(), model_name: 'split', inputs: [input], raw_input_contents: [rng.int(2) === 0 ? rawBytes(text.toString('latin1')) : text] } }
        : { kind: 'text-input', request: { ...base(), model_name: 'split', inputs: [{ ...input, contents: { bytes_contents: [text, text].slice(0, 1 + rng.int(2)) } }] } };
    }
    default: {
      const outputs = [{ name: rng.pick(NAMES), parameters: { [rng.pick(['__proto__', 'classification', 'binary_data'])]: randomParameter(rng) } }];
      return { kind: 'outputs', request: { ...base(), inputs: [textInput('x')], outputs } };
    }
  }
}

interface Finding {
  method: string;
  kind: string;
  code: number | string;
  details: string;
}

function callUnary(client: Client, method: string, request: unknown): Promise<{ code: number; details: string }> {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + ANSWER_BOUND_MS);
    (client[method] as (...a: unknown[]) => void).call(client, request, new grpc.Metadata(), { deadline }, (err: grpc.ServiceError | null) =>
      resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '' }),
    );
  });
}

/** One ModelStreamInfer call: the hostile request then a valid one; the stream's messages and status. */
function callStream(request: unknown): Promise<{ code: number; details: string; errors: string[] }> {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + ANSWER_BOUND_MS);
    const call = (h.client.ModelStreamInfer as (m: grpc.Metadata, o: grpc.CallOptions) => grpc.ClientDuplexStream<unknown, any>).call(h.client, new grpc.Metadata(), { deadline });
    const errors: string[] = [];
    call.on('data', (m: { error_message: string }) => {
      if (m.error_message) errors.push(m.error_message);
    });
    call.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details, errors }));
    call.on('end', () => resolve({ code: grpc.status.OK, details: '', errors }));
    call.write(request);
    call.write({ model_name: 'split', inputs: [textInput('ok')] });
    call.end();
  });
}

/** An INVALID_ARGUMENT message should say which input, parameter or field it refuses. */
function namesSomething(details: string): boolean {
  return /'[^']*'|`[^`]*`|\binput\b|parameter|model|message|shape|raw|JSON|sampling|top_k|max tokens|temperature|penalty|top_p|seed|stop|\bn must/i.test(details);
}

async function validInfer(): Promise<void> {
  const res = await h.call<any>('ModelInfer', { model_name: 'split', inputs: [textInput('dummy input')] });
  assert.equal(res.outputs[0].contents.bytes_contents[0].toString(), 'dummy input');
  const tensor = await h.call<any>('ModelInfer', {
    model_name: 'batched',
    inputs: [
      { name: 'INPUT0', datatype: 'INT32', shape: [1, 3], contents: { int_contents: [1, 2, 3] } },
      { name: 'INPUT1', datatype: 'BYTES', shape: [1, 1], contents: { bytes_contents: [Buffer.from('a')] } },
    ],
  });
  assert.deepEqual(tensor.outputs[0].contents.int_contents, [1, 2, 3]);
}

async function runBatches(
  t: TestContext,
  title: string,
  count: number,
  one: (rng: Rng) => Promise<{ kind: string; code: number; details: string; method: string }>,
  rng: Rng,
  tally: FuzzTally,
  findings: Finding[],
): Promise<void> {
  for (let start = 0; start < count; start += BATCH) {
    for (let at = start; at < Math.min(start + BATCH, count); at += CONCURRENCY) {
      const n = Math.min(CONCURRENCY, Math.min(start + BATCH, count) - at);
      const outcomes = await Promise.all(Array.from({ length: n }, () => one(rng)));
      for (const o of outcomes) {
        tally.record(o.kind, grpc.status[o.code] ?? o.code);
        if (SERVER_FAULTS.has(o.code) || o.code === grpc.status.DEADLINE_EXCEEDED) {
          findings.push({ method: o.method, kind: o.kind, code: grpc.status[o.code] ?? o.code, details: o.details.slice(0, 300) });
        } else if (o.code === grpc.status.INVALID_ARGUMENT && !namesSomething(o.details)) {
          tally.unnamed.push(`${o.method} ${o.kind}: ${o.details.slice(0, 200)}`);
        }
      }
    }
    await validInfer().catch((err: unknown) => findings.push({ method: 'valid-after-batch', kind: title, code: 'failed', details: String(err) }));
  }
  t.diagnostic(`${title}: done`);
}

const NAME_METHODS = ['ModelMetadata', 'ModelConfig', 'ModelReady', 'ModelStatistics'];
const OTHER_METHODS = ['ServerLive', 'ServerReady', 'ServerMetadata', 'RepositoryIndex', 'SystemSharedMemoryStatus', 'CudaSharedMemoryStatus', 'SystemSharedMemoryRegister', 'TraceSetting', 'LogSettings'];
const ALL_METHODS = [...NAME_METHODS, ...OTHER_METHODS, 'ModelInfer', 'RepositoryModelLoad', 'RepositoryModelUnload'];

test('gRPC fuzz: every method answers hostile calls without a server fault or hang', async (t) => {
  const rng = new Rng(SEED);
  const tally = new FuzzTally();
  const findings: Finding[] = [];
  await runBatches(t, 'ModelInfer', PER_METHOD, async (r) => {
    const { kind, request } = hostileInfer(r);
    return { kind, method: 'ModelInfer', ...(await callUnary(h.client, 'ModelInfer', request)) };
  }, rng, tally, findings);
  await runBatches(t, 'ModelStreamInfer', Math.floor(PER_METHOD / 2), async (r) => {
    const { kind, request } = hostileInfer(r);
    const res = await callStream(request);
    const inStream = res.errors.find((e) => /Internal server error/.test(e));
    return { kind: `stream-${kind}`, method: 'ModelStreamInfer', code: inStream ? grpc.status.INTERNAL : res.code, details: inStream ?? res.details };
  }, rng, tally, findings);
  await runBatches(t, 'model-name methods', PER_METHOD / 2, async (r) => {
    const method = r.pick(NAME_METHODS);
    const name = r.pick([...MODELS, ...HOSTILE_VALUES.filter((v) => typeof v === 'string')]) as string;
    return { kind: 'name', method, ...(await callUnary(h.client, method, { name, version: r.pick(['', '1', '-1', 'x']) })) };
  }, rng, tally, findings);
  await runBatches(t, 'repository and server methods', PER_METHOD / 4, async (r) => {
    const method = r.pick([...OTHER_METHODS, 'RepositoryModelLoad', 'RepositoryModelUnload']);
    // Unload only names nobody serves: unloading a served model is a valid, effective request.
    const request = { model_name: r.pick(['nope', '', '__proto__', 'x'.repeat(5000)]), ready: r.int(2) === 1, repository_name: r.pick(['', 'x']) };
    return { kind: 'misc', method, ...(await callUnary(h.client, method, request)) };
  }, rng, tally, findings);
  await runBatches(t, 'bytes that are not the message', PER_METHOD / 2, async (r) => {
    const method = r.pick(ALL_METHODS);
    const valid = Buffer.from(JSON.stringify({ model_name: 'split' }));
    const bytes = r.pick([
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      Buffer.from([0x12, 0x05, 0x61]),
      Buffer.from([0xff, 0xff, 0xff]),
      Buffer.from([0x0b]),
      Buffer.concat([Buffer.from([0x0a, 0x05]), Buffer.from('split'), Buffer.from([0x32, 0x80])]),
      valid,
      Buffer.from(Array.from({ length: 64 }, () => r.int(256))),
    ]);
    return { kind: 'not-protobuf', method, ...(await callUnary(raw, method, bytes)) };
  }, rng, tally, findings);
  const line = tally.summary(`grpc (seed ${SEED})`);
  t.diagnostic(line);
  console.log(line);
  if (tally.unnamed.length > 0) console.log(`INVALID_ARGUMENT not naming what it refuses: ${tally.unnamed.length}\n  ${tally.unnamed.slice(0, 10).join('\n  ')}`);
  assert.deepEqual(findings.slice(0, 20), [], `${findings.length} findings`);
  assert.deepEqual(tally.unnamed.slice(0, 10), []);
});
