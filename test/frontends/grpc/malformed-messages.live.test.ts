// Bytes that do not decode as the request message: grpc-js alone answers INTERNAL; this server
// answers INVALID_ARGUMENT, and on ModelStreamInfer an in-stream error_message after which the
// stream serves its next request (as upstream does for a broken inbound message).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { loadProtos } from '../../../src/frontends/grpc/index.js';
import { completionsModel, SplitEngine, startHarness, textInput, type Client, type Harness } from './harness.js';

let h: Harness;
let raw: Client;
const NOT_A_MESSAGE = Buffer.from([0xff, 0xff, 0xff]);

before(async () => {
  h = await startHarness({ completions: [completionsModel('split', new SplitEngine())] });
  const protos = loadProtos();
  const infer = protos.root.lookupType('inference.ModelInferRequest');
  // Sends Buffers as they are and encodes anything else as a ModelInferRequest.
  const passBytes = (m: { requestSerialize: (v: unknown) => Buffer }) => (v: unknown) =>
    Buffer.isBuffer(v) ? v : Buffer.from(infer.encode(infer.fromObject(v as object)).finish());
  const identity = Object.fromEntries(Object.entries(protos.inference).map(([name, m]) => [name, { ...m, requestSerialize: passBytes(m) }]));
  const Ctor = grpc.makeGenericClientConstructor(identity, 'RawInference');
  raw = new Ctor(`127.0.0.1:${h.frontend.grpcPort}`, grpc.credentials.createInsecure()) as unknown as Client;
});
after(async () => {
  raw.close();
  await h.close();
});

test('unary: a message that does not decode is INVALID_ARGUMENT, not INTERNAL', async () => {
  for (const method of ['ModelInfer', 'ModelMetadata', 'RepositoryModelUnload']) {
    const err = await new Promise<grpc.ServiceError | null>((resolve) =>
      (raw[method] as (...a: unknown[]) => void).call(raw, NOT_A_MESSAGE, (e: grpc.ServiceError | null) => resolve(e)),
    );
    assert.equal(err?.code, grpc.status.INVALID_ARGUMENT, `${method}: ${err?.details}`);
    assert.match(err!.details, /^Malformed request message: /);
  }
});

test('stream: a broken message is an in-stream error, then the next request is served', async () => {
  const call = (raw.ModelStreamInfer as () => grpc.ClientDuplexStream<unknown, any>).call(raw);
  const messages: { error_message: string; infer_response: any }[] = [];
  const done = new Promise<void>((resolve, reject) => {
    call.on('data', (m) => messages.push(m));
    call.on('end', resolve);
    call.on('error', reject);
  });
  call.write(NOT_A_MESSAGE);
  call.write({ model_name: 'split', inputs: [textInput('dummy input')] });
  call.end();
  await done;
  assert.equal(messages.length, 2);
  assert.match(messages[0]!.error_message, /^Malformed request message: /);
  assert.equal(messages[0]!.infer_response, null);
  assert.equal(messages[1]!.infer_response.outputs[0].contents.bytes_contents[0].toString(), 'dummy input');
});
