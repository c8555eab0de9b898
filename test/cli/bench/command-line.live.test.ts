// `dynamo-ts bench` as a command: help, option checks, and a whole run from the CLI process.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { progressBar } from '../../../src/cli/bench/index.js';
import { planBench } from '../../../src/cli/bench/plan.js';
import { parseLength, seededRandom } from '../../../src/cli/bench/random.js';
import { traceWorkload, syntheticWorkload } from '../../../src/cli/bench/workload.js';
import { runCli } from '../../support/processes.js';
import { serveInProcess } from '../../support/in-process.js';
import { benchConfig } from './helpers.js';

test('bench --help lists its options; the top help lists the command', async () => {
  const help = await runCli(['bench', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.output, /--concurrency <n\[,n\.\.\.\]>.*DYN_BENCH_CONCURRENCY/s);
  assert.match(help.output, /--request-rate/);
  assert.match(help.output, /--html <path>/);
  assert.doesNotMatch(help.output, /--http-port/, 'server options are not bench options');
  const top = await runCli(['--help']);
  assert.match(top.output, /^ {2}bench +Load generator/m);
});

test('bad bench options exit 2 naming the flag', async () => {
  const cases: [string[], RegExp][] = [
    [['--concurrency', '0'], /--concurrency must be a comma-separated list of positive integers/],
    [['--input-tokens', 'poisson:3'], /--input-tokens must be a token count N, fixed:N, uniform:MIN,MAX or normal:MEAN,STDDEV/],
    [['--http-port', '1'], /--http-port is a 'frontend' option; it applies to 'dynamo-ts frontend' and 'dynamo-ts serve', not 'dynamo-ts bench'/],
    [['--api', 'kserve', '--url', 'http://127.0.0.1:1'], /--api kserve needs grpc:\/\/host:port or host:port/],
    [['--api', 'kserve', '--url', 'grpc://127.0.0.1:1'], /--model is required with --api kserve/],
    [['--request-rate', '1,2', '--concurrency', '1,2'], /with --request-rate or --trace it is one value/],
    [['--input-tokens', 'uniform:9,3'], /uniform MIN must not exceed MAX/],
  ];
  for (const [args, message] of cases) {
    const { code, output } = await runCli(['bench', ...args]);
    assert.equal(code, 2, `${args.join(' ')}: ${output}`);
    assert.match(output, message);
  }
});

test('the CLI runs a sweep, writes --output and exits 0', { timeout: 120_000 }, async () => {
  const { service, baseUrl } = await serveInProcess(['--speedup-ratio', '1000']);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-cli-')), 'out.json');
  try {
    const { code, output } = await runCli(['bench', '--url', baseUrl, '--concurrency', '2', '--requests', '4', '--output-tokens', '5', '--output', file]);
    assert.equal(code, 0, output);
    assert.match(output, /concurrency 2: 4 ok, 0 failed/);
    assert.doesNotMatch(output, /\[#/, 'no progress bar when stderr is not a terminal');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).runs[0].tokens.output, 20);
  } finally {
    await service.stop();
  }
});

test('plans: sweeps by concurrency or rate, caps, bounds', () => {
  assert.deepEqual(planBench(benchConfig([])), { points: [{ concurrency: 1 }], requests: 100, durationMs: Infinity, maxInFlight: Infinity });
  assert.deepEqual(planBench(benchConfig(['--concurrency', '1,8,32', '--duration', '5'])).points, [{ concurrency: 1 }, { concurrency: 8 }, { concurrency: 32 }]);
  const rate = planBench(benchConfig(['--request-rate', '2.5,10', '--concurrency', '4', '--duration', '5']));
  assert.deepEqual(rate, { points: [{ requestRate: 2.5 }, { requestRate: 10 }], requests: Infinity, durationMs: 5000, maxInFlight: 4 });
});

test('length distributions and synthetic prompts are seeded and bounded', () => {
  const random = seededRandom(1);
  const uniform = parseLength('uniform:5,9', '--input-tokens');
  const normal = parseLength('normal:100,10', '--input-tokens');
  for (let i = 0; i < 1000; i++) {
    const u = uniform(random);
    assert.ok(u >= 5 && u <= 9 && Number.isInteger(u));
    assert.ok(normal(random) >= 1);
  }
  assert.equal(parseLength('7', 'x')(random), 7);
  const a = syntheticWorkload({ inputTokens: '50', outputTokens: '4', sharedPrefixRatio: 0.5, sessionTurns: 2, seed: 3 });
  const b = syntheticWorkload({ inputTokens: '50', outputTokens: '4', sharedPrefixRatio: 0.5, sessionTurns: 2, seed: 3 });
  const [first, second] = [a.next()!, a.next()!];
  assert.deepEqual(first, b.next());
  assert.equal(first.turns.length, 2);
  assert.equal(first.turns[0]!.text.split(' ').length - 1, 50, 'one word per token');
  const prefix = (text: string) => text.split(' ').slice(0, 26).join(' ');
  assert.equal(prefix(first.turns[0]!.text), prefix(second.turns[0]!.text), 'half of each first turn is the shared prefix');
  assert.notEqual(first.turns[0]!.text, second.turns[0]!.text);
});

test('a Mooncake trace: hash ids become shared text blocks, timestamps become offsets', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'trace-'));
  const file = path.join(dir, 't.jsonl');
  writeFileSync(file, [
    { timestamp: 5000, input_length: 10, output_length: 3, hash_ids: [7, 8, 9] },
    { timestamp: 5100, input_length: 6, output_length: 2, hash_ids: [7, 8] },
  ].map((l) => JSON.stringify(l)).join('\n'));
  const trace = traceWorkload(file, 4, 2);
  assert.equal(trace.size, 2);
  const [one, two] = [trace.next()!, trace.next()!];
  assert.equal(trace.next(), undefined);
  assert.deepEqual([one.atMs, two.atMs], [0, 50]);
  assert.equal(one.turns[0]!.maxTokens, 3);
  assert.equal(one.turns[0]!.text.split(' ').length - 1, 10);
  assert.ok(one.turns[0]!.text.startsWith(two.turns[0]!.text), 'the second prompt is the first one\'s first 6 tokens');
  writeFileSync(file, '{"timestamp": 1, "input_length": 0, "output_length": 1}\n');
  assert.throws(() => traceWorkload(file, 4, 1), /t\.jsonl:1: 'input_length' must be a positive integer/);
});

test('the progress bar draws on a terminal only', () => {
  let drawn = '';
  const terminal = { isTTY: true, write: (text: string) => (drawn += text) } as unknown as NodeJS.WriteStream;
  const bar = progressBar(terminal);
  bar.begin('concurrency 2', 4, Infinity);
  for (let i = 0; i < 4; i++) bar.record({ startMs: 0, endMs: 1, outputTokens: 1, text: '', ...(i === 3 ? { error: 'HTTP 500' } : {}) });
  bar.end();
  assert.match(drawn, /\rconcurrency 2 \[#{30}\] 4\/4 req [\d.]+ req\/s 1 failed/);
  assert.ok(drawn.endsWith('\n'));
  let piped = '';
  const pipe = { isTTY: false, write: (text: string) => (piped += text) } as unknown as NodeJS.WriteStream;
  const silent = progressBar(pipe);
  silent.begin('x', 1, Infinity);
  silent.end();
  assert.equal(piped, '');
});
