// --model-repository: Triton-layout folders (`<model>/config.pbtxt` + version folders) written by
// the test describe the worker-served model of the same name; the repository RPCs list, load and
// unload them.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { completionsModel, SplitEngine, startHarness, textInput, texts, type Harness } from './harness.js';

const SPLIT_CONFIG = `
# The vLLM-backend layout Triton users already have.
name: "split"
platform: "vllm"
backend: "vllm"
max_batch_size: 8
input [
  { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
  { name: "stream" data_type: TYPE_BOOL dims: [ 1 ] optional: true }
]
output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ]
instance_group [ { count: 1 kind: KIND_MODEL } ]
parameters { key: "engine" value: { string_value: "split" } }
`;

let repo: string;
let h: Harness;

function writeModel(folder: string, config: string, versions: string[]): void {
  mkdirSync(path.join(repo, folder), { recursive: true });
  writeFileSync(path.join(repo, folder, 'config.pbtxt'), config);
  for (const v of versions) mkdirSync(path.join(repo, folder, v), { recursive: true });
}

async function rejects(p: Promise<unknown>, code: number, includes: string): Promise<void> {
  await assert.rejects(p, (err: grpc.ServiceError) => {
    assert.equal(err.code, code, err.message);
    assert.ok(err.details.includes(includes), `${err.details} should include ${includes}`);
    return true;
  });
}

const entry = async (name: string) => (await h.call<any>('RepositoryIndex', {})).models.find((m: any) => m.name === name);

before(async () => {
  repo = mkdtempSync(path.join(tmpdir(), 'dynamo-model-repo-'));
  writeModel('split', SPLIT_CONFIG, ['1']);
  // Named by its folder: the config has no `name`.
  writeModel('offline', 'platform: "vllm"\nmax_batch_size: 2\n', ['2', '10']);
  h = await startHarness({ completions: [completionsModel('split', new SplitEngine())], modelRepository: repo });
});
after(async () => {
  await h.close();
  rmSync(repo, { recursive: true, force: true });
});

test('ModelConfig and ModelMetadata of a worker-served model come from its config.pbtxt', async () => {
  const { config } = await h.call<any>('ModelConfig', { name: 'split' });
  assert.equal(config.name, 'split');
  assert.equal(config.platform, 'vllm');
  assert.equal(config.backend, 'vllm');
  assert.equal(config.max_batch_size, 8);
  assert.deepEqual(
    config.input.map((t: any) => [t.name, t.data_type, t.dims, t.optional]),
    [['text_input', 'TYPE_STRING', ['1'], false], ['stream', 'TYPE_BOOL', ['1'], true]],
  );
  assert.equal(config.instance_group[0].kind, 'KIND_MODEL');
  assert.equal(config.parameters.engine.string_value, 'split');

  const meta = await h.call<any>('ModelMetadata', { name: 'split' });
  assert.equal(meta.platform, 'vllm');
  assert.deepEqual(meta.inputs.map((t: any) => [t.name, t.datatype, t.shape]), [['text_input', 'TYPE_STRING', ['1']], ['stream', 'TYPE_BOOL', ['1']]]);
  assert.deepEqual(meta.outputs.map((t: any) => t.name), ['text_output']);

  // Inference still goes to the worker.
  const res = await h.call<any>('ModelInfer', { model_name: 'split', inputs: [textInput('hello')] });
  assert.equal(texts(res.outputs[0]).length, 1);
});

test('RepositoryIndex lists every repository folder with its newest version and state', async () => {
  const { models } = await h.call<any>('RepositoryIndex', {});
  assert.deepEqual(models, [
    { name: 'offline', version: '10', state: 'UNAVAILABLE', reason: 'no worker serves this model' },
    { name: 'split', version: '1', state: 'READY', reason: '' },
  ]);
  const ready = await h.call<any>('RepositoryIndex', { ready: true });
  assert.deepEqual(ready.models.map((m: any) => m.name), ['split']);
  assert.deepEqual(await h.call('ModelReady', { name: 'offline' }), { ready: false });
});

test('RepositoryModelLoad reads a folder added after startup and re-reads a changed config', async () => {
  writeModel('late', 'name: "late"\nplatform: "vllm"\n', ['1']);
  assert.equal(await entry('late'), undefined);
  await h.call('RepositoryModelLoad', { model_name: 'late' });
  assert.deepEqual(await entry('late'), { name: 'late', version: '1', state: 'UNAVAILABLE', reason: 'no worker serves this model' });

  writeModel('split', SPLIT_CONFIG.replace('max_batch_size: 8', 'max_batch_size: 16'), ['1', '2']);
  await h.call('RepositoryModelLoad', { model_name: 'split' });
  assert.equal((await h.call<any>('ModelConfig', { name: 'split' })).config.max_batch_size, 16);
  assert.equal((await entry('split')).version, '2');

  await rejects(h.call('RepositoryModelLoad', { model_name: 'ghost' }), grpc.status.NOT_FOUND, 'not found');
});

test('unload makes the model UNAVAILABLE; load makes it READY again', async () => {
  await h.call('RepositoryModelUnload', { model_name: 'split' });
  assert.deepEqual(await entry('split'), { name: 'split', version: '2', state: 'UNAVAILABLE', reason: 'unloaded' });
  assert.deepEqual(await h.call('ModelReady', { name: 'split' }), { ready: false });
  await rejects(h.call('ModelInfer', { model_name: 'split', inputs: [textInput('x')] }), grpc.status.UNAVAILABLE, 'unloaded');

  await h.call('RepositoryModelLoad', { model_name: 'split' });
  assert.equal((await entry('split')).state, 'READY');
  assert.deepEqual(await h.call('ModelReady', { name: 'split' }), { ready: true });
  const res = await h.call<any>('ModelInfer', { model_name: 'split', inputs: [textInput('again')] });
  assert.equal(res.model_name, 'split');
});
