// `dynamo-ts bench` against the mocker served in this process: counts, token totals, the JSON
// document, trace replay's shared prefixes and the KServe gRPC client.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { serveInProcess } from '../../support/in-process.js';
import { bench } from './helpers.js';

let served: Awaited<ReturnType<typeof serveInProcess>>;
const dir = mkdtempSync(path.join(tmpdir(), 'bench-'));

before(async () => {
  served = await serveInProcess(['--speedup-ratio', '1000', '--router-mode', 'kv']);
});
after(async () => {
  await served.service.stop();
});

test('a concurrency sweep sends every request and counts max_tokens per answer (ignore_eos)', async () => {
  const output = path.join(dir, 'sweep.json');
  const { results, printed } = await bench(['--url', served.baseUrl, '--concurrency', '1,4', '--requests', '12', '--output-tokens', '16', '--input-tokens', 'uniform:20,40', '--output', output]);
  assert.deepEqual(results.runs.map((r) => r.load), [{ concurrency: 1 }, { concurrency: 4 }]);
  for (const run of results.runs) {
    assert.deepEqual(run.requests, { completed: 12, failed: 0 });
    assert.equal(run.tokens.output, 12 * 16);
    assert.ok(run.tokens.input >= 12 * 20, `input tokens ${run.tokens.input}`);
    assert.equal(run.ttftMs?.count, 12);
    assert.equal(run.interTokenMs?.count, 12);
    assert.equal(run.e2eMs?.count, 12);
    assert.ok(run.ttftMs!.p50 <= run.ttftMs!.p99 && run.ttftMs!.p99 <= run.e2eMs!.max);
    assert.ok(run.requestsPerS > 0 && run.outputTokensPerS > 0);
    assert.equal(run.samples.ttftMs.length, 12);
  }
  assert.equal(results.target.model, 'Qwen/Qwen3-0.6B', 'the model comes from /v1/models');
  assert.match(printed, /concurrency 4: 12 ok, 0 failed/);
  const written = JSON.parse(readFileSync(output, 'utf8'));
  assert.deepEqual(written, JSON.parse(JSON.stringify(results)));
  assert.deepEqual(Object.keys(written), ['tool', 'version', 'startedAt', 'target', 'workload', 'runs']);
  assert.deepEqual(Object.keys(written.runs[0]), [
    'load', 'requests', 'durationS', 'requestsPerS', 'outputTokensPerS', 'tokens', 'ttftMs', 'interTokenMs', 'e2eMs', 'errors', 'samples',
  ]);
  assert.deepEqual(Object.keys(written.runs[0].ttftMs), ['count', 'mean', 'min', 'max', 'p50', 'p90', 'p99']);
});

test('completions without streaming at a Poisson rate, multi-turn sessions with a shared prefix', async () => {
  const { results } = await bench([
    '--url', served.baseUrl, '--api', 'completions', '--no-stream', '--request-rate', '200', '--requests', '9',
    '--session-turns', '3', '--shared-prefix-ratio', '0.8', '--input-tokens', '200', '--output-tokens', '8',
  ]);
  const [run] = results.runs;
  assert.deepEqual(run!.requests, { completed: 9, failed: 0 });
  assert.equal(run!.tokens.output, 9 * 8);
  assert.equal(run!.ttftMs, undefined, 'no TTFT without streaming');
  // Later turns resend the history: their prompts grow.
  assert.ok(run!.tokens.input > 9 * 200, `input tokens ${run!.tokens.input}`);
  assert.ok(run!.tokens.cachedInput > 0, 'the shared prefix and the history are served from the KV cache');
});

test('--duration bounds a run by time', async () => {
  const { results } = await bench(['--url', served.baseUrl, '--duration', '0.3', '--concurrency', '2', '--output-tokens', '4', '--input-tokens', '10']);
  const [run] = results.runs;
  assert.ok(run!.requests.completed > 0);
  assert.equal(run!.requests.failed, 0);
});

test('trace replay turns equal hash ids into shared prefixes: KV hits in the frontend metrics', async () => {
  const write = (name: string, ids: (i: number) => number[]) => {
    const file = path.join(dir, name);
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ timestamp: 1000 + i * 20, input_length: 256, output_length: 4, hash_ids: ids(i) }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const cachedSum = async () => {
    const text = await (await fetch(`${served.baseUrl}/metrics`)).text();
    return Number(/^dynamo_frontend_cached_tokens_sum\{[^}]*\} (\S+)$/m.exec(text)?.[1] ?? 0);
  };
  const args = ['--url', served.baseUrl, '--trace-block-size', '64', '--trace-speedup', '2'];
  const distinct = write('distinct.jsonl', (i) => [100 + i * 4, 101 + i * 4, 102 + i * 4, 103 + i * 4]);
  const before = await cachedSum();
  const alone = await bench([...args, '--trace', distinct]);
  assert.deepEqual(alone.results.runs[0]!.requests, { completed: 6, failed: 0 });
  assert.deepEqual(alone.results.runs[0]!.load, {});
  assert.equal(alone.results.runs[0]!.tokens.cachedInput, 0);
  assert.equal(await cachedSum(), before, 'distinct hash ids share nothing');

  const shared = write('shared.jsonl', (i) => [1, 2, 3, 500 + i]);
  const replay = await bench([...args, '--trace', shared]);
  assert.deepEqual(replay.results.runs[0]!.requests, { completed: 6, failed: 0 });
  assert.equal(replay.results.workload.kind, 'trace');
  // Five requests after the first find its three 64-token blocks cached.
  assert.ok(replay.results.runs[0]!.tokens.cachedInput >= 5 * 3 * 64 - 5 * 64, `cached ${replay.results.runs[0]!.tokens.cachedInput}`);
  assert.ok((await cachedSum()) - before >= 5 * 2 * 64, 'the frontend counted the cached prompt tokens');
});

test('KServe gRPC: ModelStreamInfer when streaming, ModelInfer otherwise', async (t) => {
  const kserve = await serveInProcess(['--speedup-ratio', '1000', '--kserve-grpc-server']);
  t.after(() => kserve.service.stop());
  const url = `grpc://127.0.0.1:${kserve.service.grpc!.grpcPort}`;
  const common = ['--url', url, '--api', 'kserve', '--model', 'Qwen/Qwen3-0.6B', '--requests', '6', '--concurrency', '3', '--output-tokens', '12', '--input-tokens', '30'];
  const unary = await bench([...common, '--no-stream']);
  assert.deepEqual(unary.results.runs[0]!.requests, { completed: 6, failed: 0 });
  assert.equal(unary.results.runs[0]!.tokens.output, 6 * 12);
  assert.ok(unary.results.runs[0]!.tokens.input >= 6 * 30);
  const streamed = await bench(common);
  const run = streamed.results.runs[0]!;
  assert.deepEqual(run.requests, { completed: 6, failed: 0 });
  assert.equal(run.ttftMs?.count, 6);
  assert.ok(run.tokens.output > 0 && run.tokens.output <= 6 * 12, `output tokens ${run.tokens.output}`);
});

test('failures are counted with their message, not thrown', async () => {
  const { results } = await bench(['--url', served.baseUrl, '--model', 'no-such-model', '--requests', '3']);
  const [run] = results.runs;
  assert.deepEqual(run!.requests, { completed: 0, failed: 3 });
  const [[message, count]] = Object.entries(run!.errors);
  assert.equal(count, 3);
  assert.match(message!, /^HTTP 404/);
});
