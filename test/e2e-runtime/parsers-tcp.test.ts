// A `dynamo-ts mocker` process with parser flags and a chosen answer, over file discovery and the
// TCP request plane, and a frontend in this process: the card on disk carries the parser names,
// the frontend's ServedModel has them, and the answer crosses the wire exactly.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { startFrontend, type FrontendService } from '../../src/launch/index.js';
import { createLogger } from '../../src/observability/index.js';
import { eventually } from '../support/in-process.js';
import type { RunningProcess } from '../support/processes.js';
import { MODEL, startMockerProcess, stopAll } from './helpers.js';
import { runConfig } from '../support/run-config.js';

// No markup, and thinking turned off per request: what the parsers do with markup is tested where
// they live; here the plumbing is.
const TEXT = 'A plain answer: 42, über alles.';
let kvRoot: string;
let frontend: FrontendService;
let worker: RunningProcess;
let client: OpenAI;

before(async () => {
  kvRoot = mkdtempSync(path.join(tmpdir(), 'dyn-parsers-kv-'));
  const env = { DYN_DISCOVERY_BACKEND: 'file', DYN_FILE_KV: kvRoot, DYN_REQUEST_PLANE: 'tcp', ETCD_LEASE_TTL: '2' };
  const config = runConfig(['frontend', '--http-host', '127.0.0.1', '--http-port', '0'], env);
  frontend = await startFrontend(config, createLogger('silent'));
  worker = startMockerProcess(env, ['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--dyn-default-thinking-mode', 'enabled', '--mocker-output-text', TEXT, '--speedup-ratio', '100']);
  await eventually(() => worker.proc.exitCode === null && frontend.models.has(MODEL) && frontend.models.get(MODEL).router.instanceIds.length === 1, 90_000, `the worker:\n${worker.output()}`);
  client = new OpenAI({ baseURL: `http://127.0.0.1:${frontend.port}/v1`, apiKey: 'unused', maxRetries: 0 });
});

after(async () => {
  await stopAll([worker]);
  await frontend.stop();
  rmSync(kvRoot, { recursive: true, force: true });
});

/** Every JSON value under the file discovery root. */
function storedValues(dir: string): unknown[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return storedValues(file);
    try {
      return [JSON.parse(readFileSync(file, 'utf8')) as unknown];
    } catch {
      return [];
    }
  });
}

test('the card the worker publishes names its parsers and thinking default, and the frontend serves the model with them', () => {
  const configs = storedValues(kvRoot)
    .map((value) => JSON.stringify(value))
    .filter((json) => json.includes('"runtime_config"'));
  assert.ok(configs.length > 0, 'a model card is stored');
  for (const json of configs) {
    assert.match(json, /"tool_call_parser":"hermes".*"reasoning_parser":"qwen3"|"reasoning_parser":"qwen3".*"tool_call_parser":"hermes"/);
    assert.match(json, /"runtime_data":\{"default_thinking_mode":"enabled"\}/);
  }
  assert.deepEqual(frontend.models.get(MODEL).parsers, { toolCall: 'hermes', reasoning: 'qwen3', defaultThinking: 'enabled' });
});

test('the chosen answer crosses the TCP request plane exactly, unary and streamed', async () => {
  const params = { model: MODEL, messages: [{ role: 'user' as const, content: 'answer' }], chat_template_args: { enable_thinking: false } };
  const unary = await client.chat.completions.create(params);
  assert.equal(unary.choices[0]!.message.content, TEXT);
  let text = '';
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) text += chunk.choices[0]?.delta.content ?? '';
  assert.equal(text, TEXT);
});
