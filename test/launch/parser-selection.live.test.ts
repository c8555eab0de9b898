// Parser selection as upstream (reference/http.md §8): workers name their output parsers with
// --dyn-tool-call-parser / --dyn-reasoning-parser, publish them in the card's runtime_config, and
// the frontend's ServedModel carries what the card says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDefaultModelCard, NO_PARSERS, toCardJson } from '../../src/models/index.js';
import type { EngineClient, LLMEngineOutput } from '../../src/protocols/index.js';
import { DistributedRuntime, engineHandler, namespaceScope } from '../../src/runtime/index.js';
import { capturingLogger } from '../support/captured-logs.js';
import { eventually, serveInProcess } from '../support/in-process.js';
import { IN_PROCESS_RUNTIME, startWatchingFrontend } from '../support/in-process-runtime.js';
import { runCli } from '../support/processes.js';

const MODEL = 'Qwen/Qwen3-0.6B';

test('serve: the workers\' parser flags reach the ServedModel through their card', async () => {
  const { service } = await serveInProcess(['--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3']);
  try {
    assert.deepEqual(service.models.get(MODEL).parsers, { toolCall: 'hermes', reasoning: 'qwen3', defaultThinking: null });
  } finally {
    await service.stop();
  }
  const plain = await serveInProcess([], { DYN_TOOL_CALL_PARSER: 'mistral' });
  try {
    assert.deepEqual(plain.service.models.get(MODEL).parsers, { toolCall: 'mistral', reasoning: null, defaultThinking: null });
  } finally {
    await plain.service.stop();
  }
});

test('an unknown parser name is a startup error on the worker (exit 2, the flag and the allowed names)', async () => {
  const tool = await runCli(['mocker', '--dyn-tool-call-parser', 'qwen_2_5']);
  assert.equal(tool.code, 2);
  assert.match(tool.output, /--dyn-tool-call-parser must be one of hermes, llama3_json, .*default, got 'qwen_2_5'/);
  const reasoning = await runCli(['serve', '--dyn-reasoning-parser', 'think']);
  assert.equal(reasoning.code, 2);
  assert.match(reasoning.output, /--dyn-reasoning-parser must be one of basic, deepseek_r1, .*minimax_append_think, .*got 'think'/);
  const env = await runCli(['mocker'], { DYN_REASONING_PARSER: 'nope' });
  assert.equal(env.code, 2);
  assert.match(env.output, /DYN_REASONING_PARSER must be one of basic/);
});

const echo: EngineClient = {
  async *generate(req): AsyncGenerator<LLMEngineOutput> {
    yield { token_ids: req.token_ids.slice(0, 1), finish_reason: 'length' };
  },
};

test('a card naming a parser this frontend lacks is refused: an error naming the model and the name, and the model is not served', async () => {
  const lines: Record<string, unknown>[] = [];
  const ns = `parsers-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespace: ns }), capturingLogger('warn', lines));
  const worker = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  try {
    const card = toCardJson(loadDefaultModelCard());
    const ep = worker.namespace(ns).component('backend').endpoint('generate');
    await ep.serveEndpoint(engineHandler(echo));
    const runtimeConfig = { ...(card.runtime_config as object), tool_call_parser: 'no_such_format', reasoning_parser: 'basic' };
    await ep.registerModel({ ...card, display_name: 'foreign', runtime_config: runtimeConfig }, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
    await eventually(() => lines.some((l) => l.model === 'foreign'), 5000, 'the refusal');
    const refusal = lines.find((l) => l.model === 'foreign')!;
    assert.equal(refusal.level, 50, 'an error');
    assert.match(String(refusal.err), /model foreign: its card names tool_call_parser 'no_such_format', which this frontend does not have \(known: hermes, .*not served/);
    assert.equal(models.has('foreign'), false, 'not served half-configured');
  } finally {
    watcher.stop();
    await worker.shutdown();
    await frontend.shutdown();
  }
});

test('a card without parser names (an older worker) serves with none', async () => {
  const ns = `parsers-none-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespace: ns }));
  const worker = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  try {
    const ep = worker.namespace(ns).component('backend').endpoint('generate');
    await ep.serveEndpoint(engineHandler(echo));
    await ep.registerModel({ ...toCardJson(loadDefaultModelCard()), display_name: 'older' }, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
    await eventually(() => models.has('older'), 5000, 'the model');
    assert.deepEqual(models.get('older').parsers, NO_PARSERS);
  } finally {
    watcher.stop();
    await worker.shutdown();
    await frontend.shutdown();
  }
});
