// --upstream-config: the file's validation, and a frontend bridging its upstreams itself, following
// the file as it changes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import OpenAI from 'openai';
import { bridgeTokenizer, parseUpstreamConfig } from '../../../src/launch/bridge/index.js';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { startInProcessFrontend } from '../../support/bridged-frontend.js';
import { eventually } from '../../support/in-process.js';
import { startStandIn, type StandIn } from '../../support/openai-upstream.js';

const dir = mkdtempSync(path.join(tmpdir(), 'dyn-upstreams-'));
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

test('short and long forms, YAML and JSON, with defaults', () => {
  const short = parseUpstreamConfig('my-model: [http://10.0.0.5:8000, http://10.0.0.6:8000]\n', 'tokens');
  assert.deepEqual(short, {
    models: [{ name: 'my-model', modelPath: undefined, upstreams: [{ url: 'http://10.0.0.5:8000', input: 'tokens' }, { url: 'http://10.0.0.6:8000', input: 'tokens' }] }],
    healthIntervalSecs: 5,
    timeoutSecs: 300,
  });
  const long = parseUpstreamConfig(
    JSON.stringify({
      models: { m: { model_path: '/models/m', upstreams: [{ url: 'http://a:1', input: 'text', kv_events: 'tcp://a:5557', api_key: 'k', model: 'served' }] } },
      health_interval_secs: 0.5,
      timeout_secs: 30,
    }),
    'tokens',
  );
  assert.deepEqual(long.models[0], { name: 'm', modelPath: '/models/m', upstreams: [{ url: 'http://a:1', input: 'text', kvEvents: 'tcp://a:5557', apiKey: 'k', model: 'served' }] });
  assert.equal(long.healthIntervalSecs, 0.5);
  assert.equal(parseUpstreamConfig('m: [http://a:1]', 'text').models[0]!.upstreams[0]!.input, 'text', 'the default input applies');
});

test('every problem names its entry', () => {
  const cases: [string, RegExp][] = [
    ['models:\n  my-model:\n    - http://a:1\n    - url: nope\n', /models\.my-model\[1\]\.url: not a URL$/],
    ['my-model: [ftp://a:1]', /my-model\[0\]: not an http\(s\) URL \(ftp:\)$/],
    ['models:\n  m:\n    - { url: "http://a:1", input: words }\n', /models\.m\[0\]\.input: must be one of tokens, text$/],
    ['models:\n  m:\n    - { url: "http://a:1", kv_event: "tcp://a:1" }\n', /models\.m\[0\]\.kv_event: unknown key/],
    ['models:\n  m:\n    - { url: "http://a:1", kv_events: "a:1" }\n', /models\.m\[0\]\.kv_events: not a tcp:\/\/HOST:PORT endpoint$/],
    ['models:\n  m: []\n', /models\.m: lists no upstream$/],
    ['m: http://a:1', /m: must be a list of upstreams$/],
    ['m: [http://a:1, http://a:1]', /m\[1\]: http:\/\/a:1 is listed twice$/],
    ['models: { m: [http://a:1] }\nhealth_interval_secs: 0\n', /health_interval_secs: must be a number greater than 0$/],
    ['models: { m: [http://a:1] }\nextra: 1\n', /\(top level\)\.extra: unknown key/],
    ['[1, 2]', /\(top level\): must be a mapping/],
    ['m: [http://a:1\n', /not valid YAML or JSON/],
    ['models:\n  m:\n    - { input: text }\n', /models\.m\[0\]\.url: missing$/],
  ];
  for (const [text, message] of cases) assert.throws(() => parseUpstreamConfig(text, 'tokens'), message, text);
});

async function standIn(answer: number[]): Promise<StandIn> {
  const s = await startStandIn({ kind: 'vllm', answer });
  cleanups.push(() => s.close());
  return s;
}

test('the frontend bridges the file itself and follows its changes', async () => {
  const tokenizer = bridgeTokenizer(loadDefaultModelCard());
  const a = await standIn(await tokenizer.encode('from a'));
  const b = await standIn(await tokenizer.encode('from b'));
  const file = path.join(dir, 'upstreams.yaml');
  writeFileSync(file, `models:\n  alpha: [${a.url}]\nhealth_interval_secs: 0.05\n`);
  const { frontend, baseUrl } = await startInProcessFrontend(['--upstream-config', file]);
  cleanups.push(() => frontend.stop());
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const count = (model: string): number => (frontend.models.has(model) ? frontend.models.get(model).router.instanceIds.length : 0);
  await eventually(() => count('alpha') === 1, 30_000, 'alpha');
  const first = await openai.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(first.choices[0]!.message.content, 'from a');

  // A second model and a second upstream for the first.
  writeFileSync(file, `models:\n  alpha: [${a.url}, ${b.url}]\n  beta:\n    - url: ${b.url}\nhealth_interval_secs: 0.05\n`);
  await eventually(() => count('alpha') === 2 && count('beta') === 1, 30_000, 'the added upstreams');
  const beta = await openai.completions.create({ model: 'beta', prompt: 'x', max_tokens: 10 });
  assert.equal(beta.choices[0]!.text, 'from b');
  assert.equal(a.requests[0]!.body.stream, true, 'a chat without max_tokens may be long: it streams');
  assert.equal(b.requests.at(-1)!.body.stream, false, 'a short unary request: one non-streamed upstream call');

  // An invalid file keeps what runs.
  writeFileSync(file, `models:\n  alpha: [not a url]\n`);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(count('alpha'), 2);

  // Removing entries removes their instances.
  writeFileSync(file, `models:\n  alpha: [${b.url}]\nhealth_interval_secs: 0.05\n`);
  await eventually(() => count('alpha') === 1 && count('beta') === 0, 30_000, 'the removed upstreams');
  const last = await openai.chat.completions.create({ model: 'alpha', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(last.choices[0]!.message.content, 'from b');
});

test('an invalid file fails startup naming the entry', async () => {
  const file = path.join(dir, 'bad.yaml');
  writeFileSync(file, 'models:\n  my-model:\n    - http://a:1\n    - url: nope\n');
  await assert.rejects(startInProcessFrontend(['--upstream-config', file]), /--upstream-config .*bad\.yaml: models\.my-model\[1\]\.url: not a URL/);
});

test('--dyn-chat-processor vllm: upstreams of the file take text, and chats go up as messages with their tools', async () => {
  const up = await startStandIn({ kind: 'text', answer: ['The engine', ' templated this.'] });
  cleanups.push(() => up.close());
  const file = path.join(dir, 'text.yaml');
  writeFileSync(file, `models:\n  engine-templated: [${up.url}]\nhealth_interval_secs: 0.05\n`);
  const { frontend, baseUrl } = await startInProcessFrontend(['--upstream-config', file, '--dyn-chat-processor', 'vllm']);
  cleanups.push(() => frontend.stop());
  await eventually(() => frontend.models.has('engine-templated') && frontend.models.get('engine-templated').router.instanceIds.length === 1, 30_000, 'the model');
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
  const answer = await openai.chat.completions.create({ model: 'engine-templated', messages: [{ role: 'user', content: 'weather?' }], tools });
  assert.equal(answer.choices[0]!.message.content, 'The engine templated this.');
  const sent = up.requests[0]!;
  assert.equal(sent.path, '/v1/chat/completions');
  assert.deepEqual(sent.body.messages, [{ role: 'user', content: 'weather?' }]);
  assert.equal((sent.body.tools as { function: { name: string } }[])[0]!.function.name, 'get_weather');
});
