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
  const tool = await runCli(['mocker', '--dyn-tool-call-parser', 'qwen25']);
  assert.equal(tool.code, 2);
  assert.match(tool.output, /--dyn-tool-call-parser must be one of hermes, llama3_json, .*default, got 'qwen25'/);
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

test('a card naming a parser this frontend lacks: a warning naming the model and the name, and the model serves without it', async () => {
  const lines: Record<string, unknown>[] = [];
  const ns = `parsers-${Date.now()}`;
  const { frontend, models, watcher } = await startWatchingFrontend(namespaceScope({ namespace: ns }), capturingLogger('warn', lines));
  const worker = await DistributedRuntime.create(IN_PROCESS_RUNTIME);
  try {
    const card = toCardJson(loadDefaultModelCard());
    const ep = worker.namespace(ns).component('backend').endpoint('generate');
    await ep.serveEndpoint(engineHandler(echo));
    const runtimeConfig = { ...(card.runtime_config as object), tool_call_parser: 'qwen25', reasoning_parser: 'basic' };
    await ep.registerModel({ ...card, display_name: 'foreign', runtime_config: runtimeConfig }, { modelType: ['Chat', 'Completions'], modelInput: 'Tokens' });
    await eventually(() => models.has('foreign') && models.get('foreign').router.instanceIds.length === 1, 5000, 'the model');
    assert.deepEqual(models.get('foreign').parsers, { toolCall: null, reasoning: 'basic', defaultThinking: null });
    const warning = lines.find((l) => l.tool_call_parser === 'qwen25');
    assert.ok(warning, 'a warning names the unknown parser');
    assert.equal(warning.model, 'foreign');
    assert.match(String(warning.msg), /model foreign: unknown tool_call_parser 'qwen25'.*serving it without that parser \(known: hermes, /);

    const out: LLMEngineOutput[] = [];
    const request = { model: 'foreign', token_ids: [42, 43], stop_conditions: {}, sampling_options: {}, output_options: {}, eos_token_ids: [] };
    for await (const o of models.get('foreign').router.generate(request, { requestId: 'r', signal: new AbortController().signal })) out.push(o);
    assert.deepEqual(out, [{ token_ids: [42], finish_reason: 'length' }]);
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
