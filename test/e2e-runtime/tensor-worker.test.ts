// `dynamo-ts frontend --kserve-grpc-server` + the echo tensor worker example as its own process, over
// file discovery and the TCP request plane: the worker's tensor model reaches the gRPC frontend
// through discovery, requests and responses cross the request plane (64-bit values exact), and the
// model leaves when the worker dies.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { makeClient, rawBytes, unary, type Client } from '../frontends/grpc/harness.js';
import { freePort, REPO_ROOT, startProcess, type RunningProcess } from '../support/processes.js';

let kvRoot: string;
let frontend: RunningProcess;
let worker: ReturnType<typeof spawn>;
let workerOut = '';
let client: Client;

async function poll(check: () => Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const modelReady = () => unary<{ ready: boolean }>(client, 'ModelReady', { name: 'echo' }).then((r) => r.ready, () => false);

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-tensor-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, ETCD_LEASE_TTL: '2', DYN_TCP_RPC_HOST: '127.0.0.1', DYN_LOG: 'warn' };
  const [grpcPort, metricsPort] = [await freePort(), await freePort()];
  frontend = startProcess(
    ['frontend', '--kserve-grpc-server', '--http-host', '127.0.0.1', '--http-port', String(grpcPort), '--grpc-metrics-port', String(metricsPort)],
    env,
  );
  worker = spawn(process.execPath, [path.join(REPO_ROOT, 'examples/echo-tensor-worker.mjs'), '--worker'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d: Buffer) => (workerOut += d.toString()));
  worker.stderr!.on('data', (d: Buffer) => (workerOut += d.toString()));
  client = makeClient(grpcPort);
  await poll(modelReady, 90_000, () => `model echo ready\n${frontend.output()}\n${workerOut}`);
});

after(async () => {
  client?.close();
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
  await frontend?.stop(3000);
  rmSync(kvRoot, { recursive: true, force: true });
});

test('ModelInfer echoes FP32, INT64 (beyond 2^53) and BYTES tensors through the remote worker', async () => {
  const int64 = Buffer.alloc(16);
  int64.writeBigInt64LE(-9007199254740993n, 0);
  int64.writeBigInt64LE(9007199254740993n, 8);
  const res = await unary<any>(client, 'ModelInfer', {
    model_name: 'echo',
    id: 'remote-1',
    inputs: [
      { name: 'f', datatype: 'FP32', shape: [4], contents: { fp32_contents: [1.5, -2, 3.25, 4] } },
      { name: 'i', datatype: 'INT64', shape: [2, 1], contents: { int64_contents: ['-9007199254740993', '9007199254740993'] } },
      { name: 's', datatype: 'BYTES', shape: [2], contents: { bytes_contents: [Buffer.from('héllo'), Buffer.from([0, 255, 7])] } },
    ],
    parameters: { tag: { string_param: 'x' } },
  });
  assert.equal(res.id, 'remote-1');
  assert.deepEqual(res.outputs.map((o: any) => [o.name, o.datatype, o.shape.map(Number)]), [
    ['f', 'FP32', [4]],
    ['i', 'INT64', [2, 1]],
    ['s', 'BYTES', [2]],
  ]);
  assert.deepEqual(res.outputs[0].contents.fp32_contents, [1.5, -2, 3.25, 4]);
  assert.deepEqual(res.outputs[1].contents.int64_contents.map(String), ['-9007199254740993', '9007199254740993']);
  assert.deepEqual(res.outputs[2].contents.bytes_contents, [Buffer.from('héllo'), Buffer.from([0, 255, 7])]);
  assert.equal(res.parameters.tag.string_param, 'x');
  assert.equal(res.parameters.processed.bool_param, true);

  const raw = await unary<any>(client, 'ModelInfer', {
    model_name: 'echo',
    inputs: [
      { name: 'i', datatype: 'INT64', shape: [2, 1] },
      { name: 's', datatype: 'BYTES', shape: [2] },
    ],
    raw_input_contents: [int64, rawBytes('a', 'bc')],
  });
  assert.deepEqual(raw.raw_output_contents, [int64, rawBytes('a', 'bc')]);
});

test('worker-side failures come back as errors', async () => {
  const fp32 = { name: 'INPUT', datatype: 'FP32', shape: [1], contents: { fp32_contents: [1] } };
  await assert.rejects(
    unary(client, 'ModelInfer', { model_name: 'echo', inputs: [fp32], parameters: { raise_exception: { bool_param: true } } }),
    (err: grpc.ServiceError) => err.code === grpc.status.INTERNAL && err.details.includes('Intentional exception'),
  );
});

test('ModelMetadata and ModelConfig show the Triton config the worker registered', async () => {
  const meta = await unary<any>(client, 'ModelMetadata', { name: 'echo' });
  assert.equal(meta.name, 'echo');
  assert.deepEqual(meta.inputs.slice(0, 2).map((i: any) => [i.name, i.datatype]), [
    ['input', 'TYPE_STRING'],
    ['optional_input', 'TYPE_INT32'],
  ]);
  const { config } = await unary<any>(client, 'ModelConfig', { name: 'echo' });
  assert.equal(config.platform, 'custom');
  assert.equal(config.model_transaction_policy.decoupled, true);
});

test('kill -9 of the worker: the tensor model disappears', async () => {
  worker.kill('SIGKILL');
  await poll(async () => !(await modelReady()), 30_000, () => 'echo still ready after its worker died');
  await assert.rejects(unary(client, 'ModelMetadata', { name: 'echo' }), (err: grpc.ServiceError) => err.code === grpc.status.NOT_FOUND);
});
