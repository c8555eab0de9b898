// An unexpected error (not one of the typed errors) never shows its text to a gRPC client: the call
// ends INTERNAL "Internal server error" and the real error is logged with the request id.
// Deliberate errors keep upstream's texts (completions.live.test.ts, tensor.live.test.ts).

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import type { ServedModel } from '../../../src/models/index.js';
import { completionsModel, FailureEngine, SplitEngine, startHarness, textInput, type Harness } from './harness.js';

const SECRET = 'tokenizer crashed reading /models/private/tokenizer.json';

interface LogLine {
  msg: string;
  request_id?: string;
  trace_id?: string;
  method?: string;
  err?: { message: string };
}

let h: Harness;
const lines: LogLine[] = [];

/** A model whose tokenizer fails with a plain Error, as a bug or a broken file would. */
function brokenTokenizerModel(name: string): ServedModel {
  const served = completionsModel(name, new SplitEngine());
  const preprocessor = Object.assign(Object.create(served.preprocessor) as ServedModel['preprocessor'], {
    preprocessCompletion: async () => {
      throw new Error(SECRET);
    },
  });
  return { ...served, preprocessor };
}

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  h = await startHarness({
    completions: [brokenTokenizerModel('broken'), completionsModel('failure', new FailureEngine())],
    logger: pino({ level: 'error' }, sink),
  });
});
after(() => h.close());

function failures(): LogLine[] {
  return lines.filter((l) => l.msg === 'gRPC request failed');
}

async function rejection(p: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error('the call succeeded');
}

test('ModelInfer: INTERNAL with the generic text; the log line has the x-request-id and the real error', async () => {
  lines.length = 0;
  const metadata = new grpc.Metadata();
  metadata.set('x-request-id', 'trace-me-123');
  metadata.set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  const err = await rejection(h.call('ModelInfer', { model_name: 'broken', id: 'ignored', inputs: [textInput('hello')] }, metadata));
  assert.equal(err.code, grpc.status.INTERNAL);
  assert.equal(err.details, 'Internal server error');
  assert.equal(failures().length, 1);
  assert.equal(failures()[0]!.request_id, 'trace-me-123');
  assert.equal(failures()[0]!.trace_id, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(failures()[0]!.method, 'ModelInfer');
  assert.equal(failures()[0]!.err?.message, SECRET);
});

test('ModelInfer without x-request-id logs the request message id', async () => {
  lines.length = 0;
  const err = await rejection(h.call('ModelInfer', { model_name: 'broken', id: 'req-42', inputs: [textInput('hello')] }));
  assert.equal(err.details, 'Internal server error');
  assert.equal(failures()[0]?.request_id, 'req-42');
});

test('ModelStreamInfer: the stream ends INTERNAL with the generic text; the log line has the request id', async () => {
  lines.length = 0;
  const metadata = new grpc.Metadata();
  metadata.set('x-request-id', 'stream-7');
  const error = await new Promise<grpc.ServiceError>((resolve, reject) => {
    const call = (h.client.ModelStreamInfer as (m: grpc.Metadata) => grpc.ClientDuplexStream<unknown, unknown>).call(h.client, metadata);
    call.on('data', () => reject(new Error('no message expected')));
    call.on('error', resolve);
    call.on('end', () => reject(new Error('the stream ended without an error')));
    call.write({ model_name: 'broken', inputs: [textInput('hello')] });
    call.end();
  });
  assert.equal(error.code, grpc.status.INTERNAL);
  assert.equal(error.details, 'Internal server error');
  assert.equal(failures()[0]?.request_id, 'stream-7');
  assert.equal(failures()[0]?.method, 'ModelStreamInfer');
});

test('deliberate errors keep their text and are not logged as unexpected', async () => {
  lines.length = 0;
  const err = await rejection(h.call('ModelInfer', { model_name: 'failure', inputs: [textInput('hello')] }));
  assert.equal(err.code, grpc.status.INTERNAL);
  assert.equal(err.details, 'Failed to generate completions: Always fail');
  assert.equal(failures().length, 0);
});
