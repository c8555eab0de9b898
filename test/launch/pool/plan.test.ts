import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../../src/config/index.js';
import { configOfProcess, processPlan } from '../../../src/launch/pool/plan.js';

function config(argv: string[], env: Record<string, string> = {}): Config {
  const parsed = parseCommandLine(argv, env);
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).config;
}

test('the default is one frontend process per core, HTTP only', () => {
  assert.deepEqual(processPlan(config(['serve']), 4), { processes: 4, grpcProcesses: 0 });
  assert.deepEqual(processPlan(config(['frontend', '--http-workers', '1']), 4), { processes: 1, grpcProcesses: 0 });
  assert.deepEqual(processPlan(config(['frontend'], { DYN_HTTP_WORKERS: '3' }), 8), { processes: 3, grpcProcesses: 0 });
});

test('beside the HTTP API, --grpc-workers picks how many processes also serve gRPC', () => {
  assert.deepEqual(processPlan(config(['serve', '--grpc-port', '9001']), 2), { processes: 2, grpcProcesses: 2 });
  const fewer = config(['serve', '--grpc-port', '9001', '--http-workers', '3', '--grpc-workers', '1']);
  const plan = processPlan(fewer, 2);
  assert.deepEqual(plan, { processes: 3, grpcProcesses: 1 });
  assert.equal(configOfProcess(fewer, plan, 0).grpcPort, 9001);
  assert.equal(configOfProcess(fewer, plan, 1).grpcPort, undefined, 'process 1 serves HTTP only');
  assert.deepEqual(processPlan(config(['serve', '--grpc-port', '9001', '--http-workers', '1'], { DYNAMO_GRPC_WORKERS: '2' }), 8), { processes: 2, grpcProcesses: 2 });
});

test('with gRPC as the API (--kserve-grpc-server), --grpc-workers counts the processes', () => {
  const kserve = config(['frontend', '--kserve-grpc-server', '--grpc-workers', '3', '--http-workers', '1']);
  const plan = processPlan(kserve, 2);
  assert.deepEqual(plan, { processes: 3, grpcProcesses: 3 });
  assert.equal(configOfProcess(kserve, plan, 2), kserve);
});

test('the terminal chat runs in one process', () => {
  assert.deepEqual(processPlan(config(['serve', '-i', '--http-workers', '4']), 4), { processes: 1, grpcProcesses: 0 });
});
