// Responses tools as the model is offered them: functions as they are, a namespace's under their own
// names, a custom tool as a function of one `input` string, hosted tools not at all; tool_choice's
// allowed_tools cuts the offer down; developer messages reach the template as system messages.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatToolChoice, chatTools } from '../../../../src/frontends/http/responses/offered-tools.js';
import { translateResponsesRequest } from '../../../../src/frontends/http/responses/request.js';

const fn = (name: string) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });

test('functions, a namespace and a custom tool are offered by name; hosted tools are not', () => {
  const { chat, offered } = chatTools([
    fn('a'),
    { type: 'namespace', name: 'ns', description: 'd', tools: [fn('b'), { type: 'custom', name: 'c' }] },
    { type: 'web_search' },
    { type: 'file_search', vector_store_ids: ['v'] },
    { type: 'apply_patch' },
  ]);
  assert.deepEqual(chat!.map((t) => (t.function as { name: string }).name), ['a', 'b', 'c']);
  assert.deepEqual([...offered], [
    ['a', { kind: 'function' }],
    ['b', { kind: 'function', namespace: 'ns' }],
    ['c', { kind: 'custom', namespace: 'ns' }],
  ]);
  const custom = chat![2]!.function as { parameters: { required: string[] } };
  assert.deepEqual(custom.parameters.required, ['input']);
});

test('only hosted tools: nothing offered, no tools in the chat request', () => {
  assert.equal(chatTools([{ type: 'web_search' }]).chat, null);
});

test('a name offered twice, a nested namespace and an unknown type are 400s naming the path', () => {
  assert.throws(() => chatTools([fn('a'), { type: 'namespace', name: 'n', tools: [fn('a')] }]), /`tools\[1\]\.tools\[0\]\.name`: tool name "a" is offered twice/);
  assert.throws(() => chatTools([{ type: 'namespace', name: 'n', tools: [{ type: 'namespace', name: 'm', tools: [] }] }]), /`tools\[0\]\.tools\[0\]\.type`/);
  assert.throws(() => chatTools([{ type: 'teleport' }]), /`tools\[0\]\.type`: tool type "teleport" is not supported/);
});

test('tool_choice: a custom tool by name, allowed_tools as a cut-down offer, a hosted tool refused', () => {
  const { chat } = chatTools([fn('a'), fn('b')]);
  assert.deepEqual(chatToolChoice({ type: 'custom', name: 'a' }, chat).choice, { type: 'function', function: { name: 'a' } });
  const allowed = chatToolChoice({ type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] }, chat);
  assert.equal(allowed.choice, 'required');
  assert.deepEqual(allowed.tools!.map((t) => (t.function as { name: string }).name), ['b']);
  assert.deepEqual(chatToolChoice({ type: 'allowed_tools', mode: 'auto', tools: [] }, chat), { choice: 'none', tools: null });
  assert.throws(() => chatToolChoice({ type: 'web_search' }, chat), /hosted tool "web_search" is not run by this gateway/);
});

test('developer messages reach the chat request as system messages', () => {
  const { chat } = translateResponsesRequest({
    model: 'm',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
      { role: 'user', content: 'Hi.' },
    ],
  });
  assert.deepEqual(chat.messages, [
    { role: 'system', content: [{ type: 'text', text: 'Rules.' }] },
    { role: 'user', content: 'Hi.' },
  ]);
});

test('top_logprobs 0 is echoed; more is refused with the route that has them', () => {
  assert.equal(translateResponsesRequest({ model: 'm', input: 'x', top_logprobs: 0 }).echo.top_logprobs, 0);
  assert.throws(() => translateResponsesRequest({ model: 'm', input: 'x', top_logprobs: 2 }), /`top_logprobs` above 0 is not supported on \/v1\/responses yet/);
});
