// The interactive chat: history kept across turns through the real pipeline, its request events,
// Ctrl-C stopping one answer, and the terminal loop's commands over plain streams.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { ChatSession, INTERACTIVE_ENDPOINT, runTerminalChat } from '../../../src/frontends/interactive/index.js';
import { modelSettings } from '../../../src/launch/model-settings.js';
import { assembleModel, loadDefaultModelCard, type ServedModel } from '../../../src/models/index.js';
import type { EngineClient, GenerateContext, LLMEngineOutput, PreprocessedRequest } from '../../../src/protocols/index.js';
import { recordRequestEvents } from '../../support/request-events.js';
import { runConfig } from '../../support/run-config.js';

/** Answers "Hello world" ([9707], [1879]) and records the prompts it was sent. */
function recordingEngine(prompts: PreprocessedRequest[]): EngineClient {
  return {
    async *generate(request): AsyncGenerator<LLMEngineOutput> {
      prompts.push(request);
      yield { token_ids: [9707] };
      yield { token_ids: [1879], finish_reason: 'stop' };
    },
  };
}

function servedModel(engine: EngineClient): ServedModel {
  const config = runConfig(['serve'], {});
  const model = assembleModel(loadDefaultModelCard({ displayName: 'chat' }), modelSettings(config), { namespace: 'test', component: 'backend', endpoint: 'generate' }).served;
  model.router.setInstances([{ id: 1n, client: engine }]);
  return model;
}

async function collect(stream: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of stream) text += piece;
  return text;
}

test('each turn sends the whole conversation through the chat template; events carry the interactive endpoint', async () => {
  const prompts: PreprocessedRequest[] = [];
  const scope = { name: 'interactive-test' };
  const events = recordRequestEvents(scope);
  const session = new ChatSession(servedModel(recordingEngine(prompts)), scope);
  try {
    assert.equal(await collect(session.send('first question', new AbortController().signal)), 'Hello world');
    assert.equal(await collect(session.send('second question', new AbortController().signal)), 'Hello world');
    assert.deepEqual(session.messages, [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'Hello world' },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: 'Hello world' },
    ]);
    assert.equal(prompts.length, 2);
    assert.ok(prompts[1]!.token_ids.length > prompts[0]!.token_ids.length + 4, 'the second prompt holds the first turn too');
    assert.deepEqual(events.names(), ['start', 'firstToken', 'token', 'token', 'end', 'start', 'firstToken', 'token', 'token', 'end']);
    assert.equal(events.of('start')[0]!.request.endpoint, INTERACTIVE_ENDPOINT);
  } finally {
    events.stop();
  }
});

test('an aborted answer ends early, keeps what was shown, and counts as cancelled', async () => {
  const hanging: EngineClient = {
    async *generate(_req, ctx: GenerateContext): AsyncGenerator<LLMEngineOutput> {
      yield { token_ids: [9707] };
      if (!ctx.signal.aborted) await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
  const scope = { name: 'interactive-abort' };
  const events = recordRequestEvents(scope);
  const session = new ChatSession(servedModel(hanging), scope);
  const abort = new AbortController();
  let text = '';
  for await (const piece of session.send('hi', abort.signal)) {
    text += piece;
    abort.abort();
  }
  events.stop();
  assert.equal(text, 'Hello');
  assert.deepEqual(session.messages.map((m) => m.content), ['hi', 'Hello']);
  assert.equal(events.names().at(-1), 'cancel');
});

test('the terminal loop: answers a line, /clear forgets, /exit ends it', async () => {
  const session = new ChatSession(servedModel(recordingEngine([])), { name: 'interactive-loop' });
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const done = runTerminalChat({ input, output, session });
  input.write('hello\n');
  input.write('/clear\n');
  input.write('/exit\n');
  await done;
  assert.match(printed, /^Chatting with chat\./);
  assert.match(printed, /> Hello world\n> \(conversation cleared\)\n> $/);
  assert.equal(session.messages.length, 0);
});
