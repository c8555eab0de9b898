// Tool calls end to end: `serve --dyn-tool-call-parser NAME --mocker-output echo-last-user`, so the
// engine answers with the user's text through the real runtime, and the official `openai` client
// sees tool calls in chat: unary and streamed alike (the streamed fragments concatenate to the unary
// arguments), text around calls, several calls, finish_reason tool_calls, tool_choice none /
// required / named, parallel_tool_calls false, `event: tool_call_dispatch`, and the 400s of
// malformed tools. Other parsers (llama3_json, mistral, pythonic) get the same unary/stream check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
// Qwen3 opens its own reasoning span (the hybrid template leaves it closed).
const THOUGHT = 'The user wants weather for two cities.';
const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } } },
];

interface Call {
  id: string;
  name: string;
  arguments: string;
}

interface Answer {
  reasoning: string;
  content: string | null;
  calls: Call[];
  finish: string | null;
}

type Body = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'model' | 'messages'>;

function ask(said: string, extra: Body = {}): OpenAI.ChatCompletionCreateParamsNonStreaming {
  return { model: MODEL, messages: [{ role: 'user', content: said }], tools, ...extra };
}

async function unary(openai: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Answer> {
  const choice = (await openai.chat.completions.create(body)).choices[0]!;
  const message = choice.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
  const calls = (message.tool_calls ?? []).map((c) => {
    assert.equal(c.type, 'function');
    const fn = (c as OpenAI.ChatCompletionMessageFunctionToolCall).function;
    return { id: c.id, name: fn.name, arguments: fn.arguments };
  });
  return { reasoning: message.reasoning_content ?? '', content: message.content, calls, finish: choice.finish_reason };
}

/** Streams and assembles the answer as a client does: by call index, id/type/name from the first piece only. */
async function streamed(openai: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Answer & { pieces: number }> {
  const answer = { reasoning: '', content: '', calls: [] as Call[], finish: null as string | null, pieces: 0 };
  for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) {
    // With --enable-streaming-tool-dispatch the client yields that event's data too: it has no choices.
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta as OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };
    answer.reasoning += delta.reasoning_content ?? '';
    answer.content += delta.content ?? '';
    for (const piece of delta.tool_calls ?? []) {
      answer.pieces += 1;
      if (piece.id !== undefined) {
        assert.equal(answer.calls[piece.index], undefined, 'a call starts once');
        assert.equal(piece.type, 'function');
        answer.calls[piece.index] = { id: piece.id, name: piece.function!.name!, arguments: '' };
      } else {
        assert.equal(piece.function?.name, undefined, 'the name comes with the first piece only');
      }
      answer.calls[piece.index]!.arguments += piece.function?.arguments ?? '';
    }
    if (choice.finish_reason) answer.finish = choice.finish_reason;
  }
  return answer;
}

/** The same request unary and streamed: the same text, reasoning, finish and calls (ids aside). */
async function bothWays(openai: OpenAI, body: OpenAI.ChatCompletionCreateParamsNonStreaming): Promise<Answer> {
  const one = await unary(openai, body);
  const many = await streamed(openai, body);
  const withoutIds = (calls: Call[]) => calls.map(({ name, arguments: args }) => ({ name, arguments: args }));
  assert.deepEqual(
    { reasoning: many.reasoning, content: many.content, finish: many.finish, calls: withoutIds(many.calls) },
    { reasoning: one.reasoning, content: one.content ?? '', finish: one.finish, calls: withoutIds(one.calls) },
  );
  for (const call of [...one.calls, ...many.calls]) assert.match(call.id, /^call-/);
  return one;
}

function namedEvents(body: string, name: string): unknown[] {
  return body
    .split('\n\n')
    .filter((frame) => frame.startsWith(`event: ${name}\n`))
    .map((frame) => JSON.parse(frame.split('\n')[1]!.slice('data: '.length)) as unknown);
}

const hermes = (name: string, args: string) => `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;

describe('serve --dyn-tool-call-parser hermes --dyn-reasoning-parser qwen3', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let openai: OpenAI;
  before(async () => {
    server = await serveInProcess([
      '--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--mocker-output', 'echo-last-user',
      '--speedup-ratio', '1000', '--enable-streaming-tool-dispatch',
    ]);
    openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  const TWO_CALLS = `<think>${THOUGHT}</think>Checking both. ${hermes('get_weather', '{"city": "Paris"}')}\n${hermes('get_time', '{"zone": "Europe/Rome"}')} Done.`;

  test('two calls with text around them: unary and streamed agree, reasoning apart, finish tool_calls', async () => {
    const answer = await bothWays(openai, ask(TWO_CALLS));
    assert.equal(answer.reasoning, THOUGHT);
    assert.equal(answer.content, 'Checking both.  Done.');
    assert.deepEqual(
      answer.calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown })),
      [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { zone: 'Europe/Rome' } },
      ],
    );
    assert.equal(answer.finish, 'tool_calls');
  });

  test('streamed arguments arrive as several fragments whose concatenation is the unary arguments', async () => {
    const said = `<think>${THOUGHT}</think>${hermes('get_weather', '{"city": "San Francisco, California, United States"}')}`;
    const one = await unary(openai, ask(said));
    const many = await streamed(openai, ask(said));
    assert.equal(one.content, null, 'content is null when only calls were made');
    assert.equal(many.calls[0]!.arguments, one.calls[0]!.arguments);
    assert.deepEqual(JSON.parse(one.calls[0]!.arguments), { city: 'San Francisco, California, United States' });
    assert.ok(many.pieces > 2, `arguments streamed in pieces (got ${many.pieces})`);
  });

  test('no call: the text is content and the finish stays stop', async () => {
    const answer = await bothWays(openai, ask(`<think>${THOUGHT}</think>It is sunny.`));
    assert.deepEqual({ content: answer.content, calls: answer.calls, finish: answer.finish }, { content: 'It is sunny.', calls: [], finish: 'stop' });
  });

  test('tool_choice none: no parsing, the call markup stays in the content', async () => {
    const answer = await bothWays(openai, ask(TWO_CALLS, { tool_choice: 'none' }));
    assert.equal(answer.calls.length, 0);
    assert.equal(answer.content, TWO_CALLS.slice(`<think>${THOUGHT}</think>`.length));
    assert.equal(answer.finish, 'stop');
  });

  test('parallel_tool_calls false keeps the first call only', async () => {
    const answer = await bothWays(openai, ask(TWO_CALLS, { parallel_tool_calls: false }));
    assert.deepEqual(answer.calls.map((c) => c.name), ['get_weather']);
    assert.equal(answer.finish, 'tool_calls');
  });

  test('tool_choice required: the guided JSON array is parsed into calls', async () => {
    const said = `<think>${THOUGHT}</think>[{"name": "get_weather", "parameters": {"city": "Oslo"}}, {"name": "get_time", "parameters": {"zone": "UTC"}}]`;
    const answer = await bothWays(openai, ask(said, { tool_choice: 'required' }));
    assert.equal(answer.reasoning, THOUGHT);
    assert.equal(answer.content, null);
    assert.deepEqual(
      answer.calls.map((c) => [c.name, JSON.parse(c.arguments)]),
      [
        ['get_weather', { city: 'Oslo' }],
        ['get_time', { zone: 'UTC' }],
      ],
    );
    assert.equal(answer.finish, 'tool_calls');
  });

  test('a named tool_choice: the guided output is that function\'s arguments', async () => {
    const said = `<think>${THOUGHT}</think>{"city": "Lima"}`;
    const answer = await bothWays(openai, ask(said, { tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
    assert.deepEqual(answer.calls.map((c) => [c.name, c.arguments]), [['get_weather', '{"city": "Lima"}']]);
    assert.equal(answer.finish, 'tool_calls');
  });

  test('arguments that fail the tool schema pass through as generated', async () => {
    const answer = await bothWays(openai, ask(`<think>${THOUGHT}</think>${hermes('get_weather', '{"city": 42, "extra": [true]}')}`));
    assert.deepEqual(answer.calls.map((c) => JSON.parse(c.arguments)), [{ city: 42, extra: [true] }]);
  });

  test('event: tool_call_dispatch carries each whole call once, before the finish', async () => {
    const res = await postJson(server.baseUrl, '/v1/chat/completions', { ...ask(TWO_CALLS), stream: true });
    assert.equal(res.status, 200);
    const body = await res.text();
    const events = namedEvents(body, 'tool_call_dispatch') as { choice_index: number; tool_call: { index: number; id: string; type: string; function: { name: string; arguments: string } } }[];
    assert.deepEqual(
      events.map((e) => [e.choice_index, e.tool_call.index, e.tool_call.type, e.tool_call.function.name, JSON.parse(e.tool_call.function.arguments)]),
      [
        [0, 0, 'function', 'get_weather', { city: 'Paris' }],
        [0, 1, 'function', 'get_time', { zone: 'Europe/Rome' }],
      ],
    );
    assert.ok(body.lastIndexOf('event: tool_call_dispatch') < body.indexOf('"finish_reason":"tool_calls"'));
  });

  test('malformed tools are a 400 naming the tool index; an unknown tool_choice function is a 400', async () => {
    const cases: [unknown, RegExp][] = [
      [[tools[0], tools[1], { type: 'function', function: { description: 'no name' } }], /tools\[2\]\.function: missing field `name`/],
      [[tools[0], { function: { name: 'f' } }], /tools\[1\]: missing field `type`/],
      [[{ type: 'function', function: { name: 'f', parameters: 'x' } }], /Function parameters at index 0 for "f" must be a JSON Schema object/],
      [{ type: 'function' }, /tools: invalid type/],
    ];
    for (const [bad, message] of cases) {
      const err = await openai.chat.completions.create({ ...ask('hi'), tools: bad as OpenAI.ChatCompletionTool[] }).catch((e: unknown) => e);
      assert.ok(err instanceof OpenAI.BadRequestError, String(err));
      assert.match(err.message, message);
    }
    const err = await openai.chat.completions.create(ask('hi', { tool_choice: { type: 'function', function: { name: 'nope' } } })).catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.match(err.message, /tool named "nope" in tool_choice is not present in tools/);
  });
});

/** One parser's own format, end to end, unary and streamed. */
const OTHER_PARSERS: [string, string][] = [
  ['llama3_json', '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {"zone": "UTC"}}'],
  ['mistral', 'Sure. [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"zone": "UTC"}}]'],
  ['pythonic', 'Sure. [get_weather(city="Paris"), get_time(zone="UTC")]'],
];

for (const [parser, said] of OTHER_PARSERS) {
  describe(`serve --dyn-tool-call-parser ${parser}`, () => {
    let server: Awaited<ReturnType<typeof serveInProcess>>;
    let openai: OpenAI;
    before(async () => {
      server = await serveInProcess(['--dyn-tool-call-parser', parser, '--mocker-output', 'echo-last-user', '--speedup-ratio', '1000']);
      openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    });
    after(() => server.service.stop());

    test('two calls, unary and streamed alike', async () => {
      const answer = await bothWays(openai, ask(said));
      assert.deepEqual(
        answer.calls.map((c) => [c.name, JSON.parse(c.arguments)]),
        [
          ['get_weather', { city: 'Paris' }],
          ['get_time', { zone: 'UTC' }],
        ],
      );
      assert.equal(answer.finish, 'tool_calls');
      assert.equal(answer.content, said.startsWith('Sure.') ? 'Sure. ' : null);
    });

    test('the official client assembles the streamed calls into the unary message', async () => {
      const final = await openai.chat.completions.stream({ ...ask(said), stream: true }).finalChatCompletion();
      const one = await openai.chat.completions.create(ask(said));
      const functions = (calls: OpenAI.ChatCompletionMessageToolCall[] | undefined) =>
        (calls ?? []).map((c) => (c as OpenAI.ChatCompletionMessageFunctionToolCall).function);
      assert.deepEqual(functions(final.choices[0]!.message.tool_calls), functions(one.choices[0]!.message.tool_calls));
      assert.equal(final.choices[0]!.finish_reason, 'tool_calls');
    });
  });
}

/** The rendered prompt of a chat request, from its `formatted_prompt` annotation. */
async function renderedPrompt(baseUrl: string, body: Record<string, unknown>): Promise<string> {
  const res = await postJson(baseUrl, '/v1/chat/completions', { ...body, stream: true, nvext: { annotations: ['formatted_prompt'] } });
  assert.equal(res.status, 200);
  // Annotations travel as an SSE comment line after their event line, as upstream sends them.
  const frame = (await res.text()).split('\n\n').find((f) => f.startsWith('event: formatted_prompt\n'));
  return JSON.parse(frame!.split('\n')[1]!.slice(': '.length)) as string;
}

describe('--exclude-tools-when-tool-choice-none', () => {
  const body = { model: MODEL, messages: [{ role: 'user', content: 'hi' }], tools, max_tokens: 1 };

  for (const [flag, rendered] of [['--exclude-tools-when-tool-choice-none', false], ['--no-exclude-tools-when-tool-choice-none', true]] as const) {
    test(`${flag}: tool_choice none ${rendered ? 'still renders' : 'leaves out'} the tools; auto renders them`, async () => {
      const server = await serveInProcess([flag, '--speedup-ratio', '1000']);
      try {
        assert.equal((await renderedPrompt(server.baseUrl, { ...body, tool_choice: 'none' })).includes('get_weather'), rendered);
        assert.ok((await renderedPrompt(server.baseUrl, { ...body, tool_choice: 'auto' })).includes('get_weather'));
      } finally {
        await server.service.stop();
      }
    });
  }
});
