import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine, type Config } from '../../../src/config/index.js';
import { configOfProcess, processPlan } from '../../../src/launch/pool/plan.js';

function config(argv: string[], env: Record<string, string> = {}): Config {
  const parsed = parseCommandLine(argv, env);
  assert.equal(parsed.kind, 'run');
  return (parsed as Extract<typeof parsed, { kind: 'run' }>).config;
}

/** The counts only: the reason is for the log. */
function counts(plan: { processes: number; grpcProcesses: number }): { processes: number; grpcProcesses: number } {
  return { processes: plan.processes, grpcProcesses: plan.grpcProcesses };
}

test('by default serve runs one process (its engines are in-process), whatever the cores', () => {
  for (const cores of [1, 2, 8, 32]) {
    const plan = processPlan(config(['serve']), 'serve', cores);
    assert.deepEqual(counts(plan), { processes: 1, grpcProcesses: 0 });
    assert.match(plan.reason, /in this process/);
  }
});

test('by default frontend runs one process on up to two cores, one per core less one above', () => {
  assert.equal(processPlan(config(['frontend']), 'frontend', 1).processes, 1);
  assert.equal(processPlan(config(['frontend']), 'frontend', 2).processes, 1);
  assert.equal(processPlan(config(['frontend']), 'frontend', 4).processes, 3);
  const big = processPlan(config(['frontend']), 'frontend', 32);
  assert.equal(big.processes, 31);
  assert.match(big.reason, /32 cores/);
});

test('--http-workers / DYN_HTTP_WORKERS set the count, HTTP only', () => {
  assert.deepEqual(counts(processPlan(config(['serve', '--http-workers', '4']), 'serve', 2)), { processes: 4, grpcProcesses: 0 });
  assert.deepEqual(counts(processPlan(config(['frontend', '--http-workers', '1']), 'frontend', 4)), { processes: 1, grpcProcesses: 0 });
  const env = processPlan(config(['frontend'], { DYN_HTTP_WORKERS: '3' }), 'frontend', 8);
  assert.deepEqual(counts(env), { processes: 3, grpcProcesses: 0 });
  assert.equal(env.reason, '--http-workers');
});

test('beside the HTTP API, --grpc-workers picks how many processes also serve gRPC', () => {
  assert.deepEqual(counts(processPlan(config(['serve', '--grpc-port', '9001', '--http-workers', '2']), 'serve', 2)), { processes: 2, grpcProcesses: 2 });
  const fewer = config(['serve', '--grpc-port', '9001', '--http-workers', '3', '--grpc-workers', '1']);
  const plan = processPlan(fewer, 'serve', 2);
  assert.deepEqual(counts(plan), { processes: 3, grpcProcesses: 1 });
  assert.equal(configOfProcess(fewer, plan, 0).grpcPort, 9001);
  assert.equal(configOfProcess(fewer, plan, 1).grpcPort, undefined, 'process 1 serves HTTP only');
  assert.deepEqual(counts(processPlan(config(['serve', '--grpc-port', '9001', '--http-workers', '1'], { DYNAMO_GRPC_WORKERS: '2' }), 'serve', 8)), { processes: 2, grpcProcesses: 2 });
});

test('with gRPC as the API (--kserve-grpc-server), --grpc-workers counts the processes', () => {
  const kserve = config(['frontend', '--kserve-grpc-server', '--grpc-workers', '3', '--http-workers', '1']);
  const plan = processPlan(kserve, 'frontend', 2);
  assert.deepEqual(counts(plan), { processes: 3, grpcProcesses: 3 });
  assert.equal(configOfProcess(kserve, plan, 2), kserve);
});

test('the RL admin listener runs in process 0 only (its port is its own)', () => {
  const rl = config(['frontend', '--http-workers', '2'], { DYN_ENABLE_RL_ENDPOINTS: 'true' });
  const plan = processPlan(rl, 'frontend', 2);
  assert.equal(configOfProcess(rl, plan, 0).enableRlEndpoints, true);
  assert.equal(configOfProcess(rl, plan, 1).enableRlEndpoints, false);
});

test('the terminal chat runs in one process', () => {
  assert.deepEqual(counts(processPlan(config(['serve', '-i', '--http-workers', '4']), 'serve', 4)), { processes: 1, grpcProcesses: 0 });
});
