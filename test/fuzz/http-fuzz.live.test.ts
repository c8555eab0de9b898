// Hostile requests to every HTTP route of `serve` (one server per model type), from a seeded
// generator: no answer may be a 5xx, every request is answered within a bound, a 4xx to a field
// mutation names the field, and after every batch a valid request (official clients) still works.
// FUZZ_SEED and FUZZ_PER_ROUTE change the run; the counts are printed and kept in bench/RESULTS.md.

import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import OpenAI from 'openai';
import { CHAT_FIELDS, COMPLETION_FIELDS } from '../../src/pipeline/preprocess/validate/index.js';
import { serveInProcess } from '../support/in-process.js';
import { FuzzTally, hostileBody, Rng, type HostileBody } from './hostile.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const PER_ROUTE = Number(process.env.FUZZ_PER_ROUTE ?? 150);
const BATCH = 40;
const CONCURRENCY = 8;
/** Generous: a request that takes this long is a hang. */
const ANSWER_BOUND_MS = 30_000;

type Served = Awaited<ReturnType<typeof serveInProcess>>;

interface Route {
  path: string;
  base: Record<string, unknown>;
  fields: readonly string[];
  /** A valid request through the official client; throws when it fails. */
  valid(baseUrl: string): Promise<void>;
}

const openai = (baseUrl: string) => new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
const anthropic = (baseUrl: string) => new Anthropic({ baseURL: baseUrl, apiKey: 'unused', maxRetries: 0 });
const MESSAGES = [{ role: 'user', content: 'Say hello' }];

const CHAT_ROUTES: Route[] = [
  {
    path: '/v1/chat/completions',
    base: { model: MODEL, messages: MESSAGES, max_tokens: 4, temperature: 0.5, logit_bias: { '9707': 1 }, stop: ['x'] },
    fields: Object.keys(CHAT_FIELDS),
    async valid(baseUrl) {
      const res = await openai(baseUrl).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
      assert.ok(res.choices[0]!.message.content !== undefined);
    },
  },
  {
    path: '/v1/completions',
    base: { model: MODEL, prompt: 'Once upon a time', max_tokens: 4, n: 1, logprobs: 1, echo: false },
    fields: Object.keys(COMPLETION_FIELDS),
    async valid(baseUrl) {
      const res = await openai(baseUrl).completions.create({ model: MODEL, prompt: 'hi', max_tokens: 3 });
      assert.equal(typeof res.choices[0]!.text, 'string');
    },
  },
  {
    path: '/v1/responses',
    base: { model: MODEL, input: [{ role: 'user', content: 'Say hello' }], max_output_tokens: 4, instructions: 'Be brief' },
    fields: ['model', 'input', 'instructions', 'max_output_tokens', 'temperature', 'top_p', 'tools', 'tool_choice', 'stream', 'text', 'reasoning', 'metadata', 'store', 'previous_response_id'],
    async valid(baseUrl) {
      const res = await openai(baseUrl).responses.create({ model: MODEL, input: 'hi', max_output_tokens: 3 });
      assert.ok(['completed', 'incomplete'].includes(res.status!), res.status);
    },
  },
  {
    path: '/v1/messages',
    base: { model: MODEL, max_tokens: 4, messages: MESSAGES, system: 'Be brief', stop_sequences: ['x'] },
    fields: ['model', 'max_tokens', 'messages', 'system', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'tools', 'tool_choice', 'stream', 'metadata', 'thinking'],
    async valid(baseUrl) {
      const res = await anthropic(baseUrl).messages.create({ model: MODEL, max_tokens: 3, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(res.type, 'message');
    },
  },
  {
    path: '/v1/messages/count_tokens',
    base: { model: MODEL, messages: MESSAGES, system: 'Be brief' },
    fields: ['model', 'messages', 'system', 'tools', 'thinking'],
    async valid(baseUrl) {
      const res = await anthropic(baseUrl).messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
      assert.ok(res.input_tokens > 0);
    },
  },
  {
    path: `/v2/models/${encodeURIComponent(MODEL)}/generate`,
    base: { text_input: 'Once upon a time', max_tokens: 4, temperature: 0.5, exclude_input_in_output: true, parameters: { top_p: 0.9 } },
    fields: ['text_input', 'max_tokens', 'temperature', 'exclude_input_in_output', 'sampling_parameters', 'stream', 'parameters', 'id'],
    async valid(baseUrl) {
      const res = await fetch(`${baseUrl}/v2/models/${encodeURIComponent(MODEL)}/generate`, { method: 'POST', body: JSON.stringify({ text_input: 'hi', max_tokens: 3 }) });
      assert.equal(res.status, 200, await res.text());
    },
  },
  {
    path: `/v2/models/${encodeURIComponent(MODEL)}/infer`,
    base: { id: 'fuzz', inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['Once upon a time'] }], outputs: [{ name: 'text_output' }], parameters: { max_tokens: 4 } },
    fields: ['inputs', 'outputs', 'parameters', 'id'],
    async valid(baseUrl) {
      const res = await fetch(`${baseUrl}/v2/models/${encodeURIComponent(MODEL)}/infer`, {
        method: 'POST',
        body: JSON.stringify({ inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1], data: ['hi'] }], parameters: { max_tokens: 3 } }),
      });
      assert.equal(res.status, 200, await res.text());
    },
  },
  {
    // A model no one serves: a valid change would make the real model busy for the later requests.
    path: '/busy_threshold',
    base: { model: 'fuzz-no-such-model', active_decode_blocks_threshold: 0.5 },
    fields: ['model', 'active_decode_blocks_threshold', 'active_prefill_tokens_threshold', 'active_prefill_tokens_threshold_frac'],
    async valid(baseUrl) {
      const res = await fetch(`${baseUrl}/busy_threshold`);
      assert.equal(res.status, 200);
    },
  },
];

const EMBEDDING_ROUTES: Route[] = [
  {
    path: '/v1/embeddings',
    base: { model: MODEL, input: ['hello', 'world'], encoding_format: 'float' },
    fields: ['model', 'input', 'encoding_format', 'dimensions', 'user'],
    async valid(baseUrl) {
      const res = await openai(baseUrl).embeddings.create({ model: MODEL, input: 'hi' });
      assert.ok(res.data[0]!.embedding.length > 0);
    },
  },
];

const IMAGE_ROUTES: Route[] = [
  {
    path: '/v1/images/generations',
    base: { model: MODEL, prompt: 'a red fox', n: 1, size: '64x64', response_format: 'b64_json' },
    fields: ['model', 'prompt', 'n', 'size', 'response_format', 'quality', 'style', 'user'],
    async valid(baseUrl) {
      const res = await openai(baseUrl).images.generate({ model: MODEL, prompt: 'a fox', size: '64x64', response_format: 'b64_json' });
      assert.ok(res.data![0]!.b64_json);
    },
  },
];

const videoValid = async (baseUrl: string) => {
  const res = await openai(baseUrl).post<{ data: unknown[] }>('/videos/generations', { body: { model: MODEL, prompt: 'a fox' } });
  assert.ok(res.data.length > 0);
};

const VIDEO_ROUTES: Route[] = ['/v1/videos/generations', '/v1/videos/generations/stream'].map((path) => ({
  path,
  base: { model: MODEL, prompt: 'a red fox', size: '64x64', seconds: 1, fps: 4 },
  fields: ['model', 'prompt', 'size', 'seconds', 'fps', 'n', 'response_format', 'seed'],
  valid: videoValid,
}));

/** The GET routes, fuzzed by path and query. */
const GET_PATHS = ['/v1/models', '/health', '/live', '/metrics', '/busy_threshold', '/openapi.json', '/v2', '/v2/health/ready', '/v2/models/stats', '/v2/models'];

interface Outcome {
  status: number;
  text: string;
}

async function send(baseUrl: string, path: string, req: HostileBody): Promise<Outcome> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': req.contentType ?? 'application/json' },
    body: new Uint8Array(req.body),
    signal: AbortSignal.timeout(ANSWER_BOUND_MS),
  });
  return { status: res.status, text: await res.text() };
}

const squash = (s: string) => s.toLowerCase().replace(/[\s_`'"-]/g, '');

/**
 * Whether an error text names `field`, in upstream's words too ("Repetition penalty" for
 * repetition_penalty, "Max tokens" for max_output_tokens). Errors about the body as a whole (not
 * JSON, wrong content type) and about the model (unknown, wrong type) are exempt: the mutated
 * field made the body unreadable, or was never looked at.
 */
function namesField(text: string, field: string): boolean {
  const message = squash(text);
  const names = [field, field.replace(/_(output|completion)_/, '_'), field.replace(/s$/, '')];
  if (names.some((n) => message.includes(squash(n)))) return true;
  return /json|body|contenttype|model/.test(message);
}

interface Finding {
  route: string;
  index: number;
  kind: string;
  status: number | string;
  detail: string;
}

async function fuzzRoutes(t: TestContext, served: Served, routes: Route[], tally: FuzzTally, rng: Rng): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const route of routes) {
    for (let start = 0; start < PER_ROUTE; start += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, PER_ROUTE - start) }, (_, i) => ({ index: start + i, req: hostileBody(rng, route.base, route.fields) }));
      for (let at = 0; at < batch.length; at += CONCURRENCY) {
        await Promise.all(
          batch.slice(at, at + CONCURRENCY).map(async ({ index, req }) => {
            let outcome: Outcome;
            try {
              outcome = await send(served.baseUrl, route.path, req);
            } catch (err) {
              tally.record(req.kind, 'no-answer');
              findings.push({ route: route.path, index, kind: req.kind, status: 'no-answer', detail: String(err) });
              return;
            }
            tally.record(req.kind, outcome.status);
            // A stream that already answered 200 reports a server fault as an in-stream error event.
            const fault = outcome.status >= 500 || /Internal server error/i.test(outcome.text);
            if (fault && !(outcome.status === 501 && req.field && namesField(outcome.text, req.field))) {
              findings.push({ route: route.path, index, kind: req.kind, status: outcome.status, detail: outcome.text.slice(0, 300) });
            } else if (outcome.status >= 400 && req.field && !namesField(outcome.text, req.field)) {
              tally.unnamed.push(`${route.path} ${req.kind} ${req.field}: ${outcome.text.slice(0, 200)}`);
            }
          }),
        );
      }
      await route.valid(served.baseUrl).catch((err: unknown) => {
        findings.push({ route: route.path, index: start, kind: 'valid-after-batch', status: 'failed', detail: String(err) });
      });
    }
    t.diagnostic(`${route.path}: done`);
  }
  return findings;
}

async function fuzzGets(served: Served, tally: FuzzTally, rng: Rng): Promise<Finding[]> {
  const findings: Finding[] = [];
  const junk = ['%00', '%ff%fe', '..%2f..%2fetc%2fpasswd', '__proto__', 'constructor', 'a'.repeat(4000), '%E2%82', '?x=' + 'b'.repeat(2000), '?__proto__[x]=1'];
  for (let i = 0; i < 60; i++) {
    const path = rng.pick(GET_PATHS) + rng.pick(['', '/', `/${rng.pick(junk)}`, rng.pick(junk)]);
    try {
      const res = await fetch(`${served.baseUrl}${path}`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
      await res.arrayBuffer();
      tally.record('get-path', res.status);
      if (res.status >= 500) findings.push({ route: path, index: i, kind: 'get-path', status: res.status, detail: '' });
    } catch (err) {
      tally.record('get-path', 'no-answer');
      findings.push({ route: path, index: i, kind: 'get-path', status: 'no-answer', detail: String(err) });
    }
  }
  return findings;
}

const servers: Served[] = [];
after(async () => {
  for (const s of servers) await s.service.stop();
});

const report = (t: TestContext, title: string, tally: FuzzTally, findings: Finding[]) => {
  const line = tally.summary(title);
  t.diagnostic(line);
  console.log(line);
  if (tally.unnamed.length > 0) console.log(`${title}: 4xx not naming the mutated field: ${tally.unnamed.length}\n  ${tally.unnamed.slice(0, 10).join('\n  ')}`);
  assert.deepEqual(findings.slice(0, 20), [], `${findings.length} findings`);
};

const ONLY = process.env.FUZZ_ONLY;
const SERVERS: [string, string[], Route[]][] = [
  ['chat', ['--enable-anthropic-api', '--enable-admin-api', '--speedup-ratio', '1000'], CHAT_ROUTES],
  ['embedding', ['--model-type', 'embedding'], EMBEDDING_ROUTES],
  ['images', ['--model-type', 'images'], IMAGE_ROUTES],
  ['videos', ['--model-type', 'videos', '--speedup-ratio', '1000'], VIDEO_ROUTES],
];

let rng: Rng;
before(() => {
  rng = new Rng(SEED);
});

for (const [name, args, routes] of SERVERS.filter(([n]) => !ONLY || ONLY === n)) {
  test(`HTTP fuzz: ${name} routes answer hostile input without 5xx or hang`, async (t) => {
    const served = await serveInProcess(args);
    servers.push(served);
    const tally = new FuzzTally();
    const findings = await fuzzRoutes(t, served, routes, tally, rng);
    if (name === 'chat') findings.push(...(await fuzzGets(served, tally, rng)));
    report(t, `http ${name} (seed ${SEED})`, tally, findings);
  });
}
