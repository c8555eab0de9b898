// What the agent CLIs send, shaped as they send it (Codex over /v1/responses, Claude Code over
// /v1/messages?beta=true), accepted end to end against `serve`: their bookkeeping fields, Codex's
// developer messages, namespace, custom and hosted tools, Claude Code's adaptive thinking, effort,
// context management and mid-conversation system messages. The mocker echoes the last user turn,
// so a turn that holds a hermes tool call comes back as that call.
import Anthropic from '@anthropic-ai/sdk';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { postJson, serveInProcess } from '../support/in-process.js';

const MODEL = 'Qwen/Qwen3-0.6B';
const hermes = (name: string, args: unknown) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** The tools Codex offers: plain functions, a namespace of functions, a custom tool, a hosted tool. */
const CODEX_TOOLS = [
  { type: 'function', name: 'exec_command', description: 'Runs a command.', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } },
  {
    type: 'namespace',
    name: 'agents',
    description: 'Sub-agents.',
    tools: [{ type: 'function', name: 'close_agent', description: 'Close one.', parameters: { type: 'object', properties: { id: { type: 'string' } } } }],
  },
  { type: 'custom', name: 'apply_patch', description: 'Apply a patch.', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
  { type: 'web_search', external_web_access: false },
];

/** A Codex turn: developer instructions with item ids, bookkeeping fields, streamed. */
function codexTurn(said: string): Record<string, unknown> {
  return {
    model: MODEL,
    stream: true,
    input: [
      { type: 'message', id: 'msg_dev', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
      { type: 'message', id: 'msg_user', role: 'user', content: [{ type: 'input_text', text: said }] },
    ],
    tools: CODEX_TOOLS,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'thread-1',
    client_metadata: { thread_id: 'thread-1', turn_id: 'turn-1' },
  };
}

interface SseEvent {
  type: string;
  [key: string]: unknown;
}

async function responseEvents(baseUrl: string, body: Record<string, unknown>): Promise<SseEvent[]> {
  const res = await postJson(baseUrl, '/v1/responses', body);
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.text())
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 'data: '.length)) as SseEvent);
}

function completed(events: SseEvent[]): Record<string, unknown> {
  const done = events.find((e) => e.type === 'response.completed');
  assert.ok(done, `a response.completed event among ${events.map((e) => e.type).join(', ')}`);
  return done.response as Record<string, unknown>;
}

describe('agent-shaped requests against serve', () => {
  let server: Awaited<ReturnType<typeof serveInProcess>>;
  let anthropic: Anthropic;
  before(async () => {
    server = await serveInProcess([
      '--dyn-tool-call-parser', 'hermes', '--dyn-reasoning-parser', 'qwen3', '--mocker-output', 'echo-last-user',
      '--speedup-ratio', '1000', '--enable-anthropic-api',
    ]);
    anthropic = new Anthropic({ baseURL: server.baseUrl, apiKey: 'unused', maxRetries: 0 });
  });
  after(() => server.service.stop());

  test('a Codex turn with every field Codex sends completes with the answer', async () => {
    const response = completed(await responseEvents(server.baseUrl, codexTurn('Nothing to do.')));
    assert.equal(response.status, 'completed');
    const message = (response.output as Record<string, unknown>[]).find((item) => item.type === 'message')!;
    assert.deepEqual((message.content as { text: string }[]).map((part) => part.text), ['Nothing to do.']);
  });

  test("a call of a namespace's function is a function_call item naming its namespace", async () => {
    const response = completed(await responseEvents(server.baseUrl, codexTurn(hermes('close_agent', { id: 'a1' }))));
    const call = (response.output as Record<string, unknown>[]).find((item) => item.type === 'function_call')!;
    assert.deepEqual({ name: call.name, namespace: call.namespace, arguments: JSON.parse(call.arguments as string) as unknown }, {
      name: 'close_agent',
      namespace: 'agents',
      arguments: { id: 'a1' },
    });
  });

  test('a call of a custom tool is a custom_tool_call whose input is the free-form text, streamed and unary alike', async () => {
    const patch = '*** Begin Patch\n*** Add File: marker.txt\n+done\n*** End Patch';
    const events = await responseEvents(server.baseUrl, codexTurn(hermes('apply_patch', { input: patch })));
    const call = (completed(events).output as Record<string, unknown>[]).find((item) => item.type === 'custom_tool_call')!;
    assert.equal(call.name, 'apply_patch');
    assert.equal(call.input, patch);
    assert.match(call.call_id as string, /.+/);
    assert.equal(events.find((e) => e.type === 'response.custom_tool_call_input.done')?.input, patch);
    const unary = await postJson(server.baseUrl, '/v1/responses', { ...codexTurn(hermes('apply_patch', { input: patch })), stream: false });
    const body = (await unary.json()) as { output: Record<string, unknown>[] };
    assert.equal(body.output.find((item) => item.type === 'custom_tool_call')?.input, patch);
  });

  test('the next turn carries the custom call and its output back as input items', async () => {
    const next = codexTurn('Patched.');
    (next.input as unknown[]).push(
      { type: 'custom_tool_call', call_id: 'call_1', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'custom_tool_call_output', call_id: 'call_1', output: 'Success.' },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: null },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Patched.' }] },
    );
    assert.equal(completed(await responseEvents(server.baseUrl, next)).status, 'completed');
  });

  test('through the openai SDK: a hosted tool alone is accepted and nothing is offered', async () => {
    const openai = new OpenAI({ baseURL: `${server.baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
    const params = { model: MODEL, input: 'Plain.', tools: [{ type: 'web_search' }], max_tool_calls: 3 };
    const response = await openai.responses.create(params as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    assert.equal(response.output_text, 'Plain.');
    assert.equal((response as unknown as { max_tool_calls: number }).max_tool_calls, 3);
  });

  test('a Claude Code turn (beta query, adaptive thinking, effort, context management, cache_control, a mid-conversation system message) completes', async () => {
    const body = {
      model: MODEL,
      max_tokens: 512,
      stream: false,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      metadata: { user_id: '{"session_id":"s1"}' },
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=test;' },
        { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } },
      ],
      tools: [{ name: 'Bash', description: 'Run a command.', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Context first.' }] },
        { role: 'system', content: 'Agent types are listed here.' },
        { role: 'user', content: [{ type: 'text', text: 'Hello there.', cache_control: { type: 'ephemeral' } }] },
      ],
    };
    const res = await postJson(server.baseUrl, '/v1/messages?beta=true', body, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219' });
    const message = (await res.json()) as { content: { type: string; text?: string }[] };
    assert.equal(res.status, 200, JSON.stringify(message));
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hello there.' }]);
  });

  test('a tool_use block id reads toolu_, streamed and unary alike, and comes back in the next turn', async () => {
    const messages = [{ role: 'user' as const, content: hermes('Bash', { command: 'touch marker.txt' }) }];
    const tools = [{ name: 'Bash', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } }];
    const unary = await anthropic.messages.create({ model: MODEL, max_tokens: 256, messages, tools });
    const use = unary.content.find((block) => block.type === 'tool_use')!;
    assert.ok(use.type === 'tool_use' && /^toolu_[0-9a-f]{32}$/.test(use.id), JSON.stringify(use));
    const streamed = await anthropic.messages.stream({ model: MODEL, max_tokens: 256, messages, tools }).finalMessage();
    const streamedUse = streamed.content.find((block) => block.type === 'tool_use')!;
    assert.ok(streamedUse.type === 'tool_use' && /^toolu_/.test(streamedUse.id));
    const next = await anthropic.messages.create({
      model: MODEL,
      max_tokens: 256,
      tools,
      messages: [
        ...messages,
        { role: 'assistant', content: unary.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.type === 'tool_use' ? use.id : '', content: 'done' }, { type: 'text', text: 'Created.' }] },
      ],
    });
    assert.deepEqual(next.content, [{ type: 'text', text: 'Created.' }]);
  });

  test('remote MCP servers are refused with a 400 that names the field', async () => {
    const res = await postJson(server.baseUrl, '/v1/messages', {
      model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], mcp_servers: [{ type: 'url', url: 'https://example.invalid', name: 'x' }],
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: { message: string } }).error.message, /^mcp_servers: /);
  });
});
