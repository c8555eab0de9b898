// Structural tags end to end: the mocker's flags go into its card, the frontend reads them and
// sends each eligible request the tool-call parser's grammar, which is what the engine receives;
// the parser of the card then reads the call, whatever the tool choice. Off (the mocker's default),
// the engine gets the tool choice's JSON schema as before. Every builder's payload, the older
// spellings and `false` are checked without a server (pipeline/preprocess/structural-tag.test.ts,
// launch/structural-tag-flags.test.ts).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PreprocessedRequest } from '../../src/protocols/index.js';
import { postJson, serveInjected } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const CALL = '<tool_call>\n{"name": "forecast", "arguments": {"city": "Oslo"}}\n</tool_call>';
const FORECAST = { type: 'object', properties: { city: { type: 'string' } } };
const TOOLS = [
  { type: 'function', function: { name: 'forecast', parameters: FORECAST } },
  { type: 'function', function: { name: 'clock', parameters: { type: 'object', properties: {} } } },
];

type Served = Awaited<ReturnType<typeof serveInjected>>;

/** Serves with `flags`, recording the request each engine receives. */
async function serveRecording(flags: string[]): Promise<{ server: Served; received: PreprocessedRequest[] }> {
  const server = await serveInjected(['--dyn-tool-call-parser', 'hermes', '--mocker-output-text', CALL, '--speedup-ratio', '1000', ...flags]);
  const received: PreprocessedRequest[] = [];
  for (const engine of server.service.engines) {
    const generate = engine.generate.bind(engine);
    engine.generate = (request, ctx) => {
      received.push(request);
      return generate(request, ctx);
    };
  }
  return { server, received };
}

async function chat(server: Served, extra: Record<string, unknown>) {
  const res = await postJson(server.baseUrl, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: TOOLS, max_tokens: 200, ...extra });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as { choices: { message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string }[] };
}

const guided = (request: PreprocessedRequest | undefined) => request?.sampling_options.guided_decoding ?? null;

describe('serve --dyn-tool-call-parser hermes --dyn-structural-tag', () => {
  let ctx: Awaited<ReturnType<typeof serveRecording>>;
  before(async () => (ctx = await serveRecording(['--dyn-structural-tag'])));
  after(() => ctx.server.service.stop());

  test('tool_choice required: the engine gets the hermes grammar, and hermes reads the call', async () => {
    const answer = await chat(ctx.server, { tool_choice: 'required' });
    const gd = guided(ctx.received.at(-1));
    assert.equal(gd?.json, null, 'no JSON schema beside the tag');
    const tag = gd?.structural_tag as { type: string; format: { type: string; triggers: string[]; at_least_one: boolean; tags: { begin: string }[] } };
    assert.equal(tag.type, 'structural_tag');
    assert.deepEqual(
      { type: tag.format.type, triggers: tag.format.triggers, atLeastOne: tag.format.at_least_one, begins: tag.format.tags.map((t) => t.begin) },
      {
        type: 'triggered_tags',
        triggers: ['<tool_call>'],
        atLeastOne: true,
        begins: ['<tool_call>\n{"name": "forecast", "arguments": ', '<tool_call>\n{"name": "clock", "arguments": '],
      },
    );
    assert.deepEqual(answer.choices[0]!.message.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]), [['forecast', { city: 'Oslo' }]]);
    assert.equal(answer.choices[0]!.finish_reason, 'tool_calls');
  });

  test('tool_choice auto (scope always by default): tagged, a call not required', async () => {
    await chat(ctx.server, {});
    const tag = guided(ctx.received.at(-1))?.structural_tag as { format: { at_least_one: boolean; stop_after_first: boolean } };
    assert.equal(tag.format.at_least_one, false);
    assert.equal(tag.format.stop_after_first, false);
  });

  test('tool_choice none with the tools left out of the prompt: no tag', async () => {
    await chat(ctx.server, { tool_choice: 'none' });
    assert.equal(guided(ctx.received.at(-1)), null);
  });
});

describe('serve --dyn-structural-tag \'{"scope": "auto", "schema": "strict"}\'', () => {
  let ctx: Awaited<ReturnType<typeof serveRecording>>;
  before(async () => (ctx = await serveRecording(['--dyn-structural-tag', '{"scope": "auto", "schema": "strict"}'])));
  after(() => ctx.server.service.stop());

  test('scope auto: an automatic choice is untagged unless it allows one call only', async () => {
    await chat(ctx.server, {});
    assert.equal(guided(ctx.received.at(-1)), null);
    await chat(ctx.server, { parallel_tool_calls: false, tools: [{ ...TOOLS[0], function: { ...TOOLS[0]!.function, strict: false } }] });
    const tag = guided(ctx.received.at(-1))?.structural_tag as { format: { stop_after_first: boolean; tags: { content: { json_schema: unknown } }[] } };
    assert.equal(tag.format.stop_after_first, true);
    assert.deepEqual(tag.format.tags[0]!.content.json_schema, FORECAST, 'schema strict enforces even a strict: false tool');
  });
});

describe('serve with the mocker\'s default (off)', () => {
  let ctx: Awaited<ReturnType<typeof serveRecording>>;
  before(async () => (ctx = await serveRecording([])));
  after(() => ctx.server.service.stop());

  test('the tool choice\'s JSON schema, no tag, and no call read from output that is not that JSON', async () => {
    const answer = await chat(ctx.server, { tool_choice: 'required' });
    const gd = guided(ctx.received.at(-1));
    assert.equal(gd?.structural_tag, null);
    assert.equal((gd?.json as { type: string }).type, 'array');
    assert.equal(answer.choices[0]!.message.tool_calls, undefined);
  });
});
