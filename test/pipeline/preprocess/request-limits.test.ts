import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../../../src/pipeline/preprocess/request-limits.js';
import { validateChatRequest, validateCompletionRequest } from '../../../src/pipeline/preprocess/validate/index.js';

const limits: RequestLimits = { maxMessages: 3, maxTools: 2, maxPromptChars: 100 };
const user = (content: unknown) => ({ role: 'user', content });
const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object' } } });

function rejects(run: () => unknown, message: string): void {
  assert.throws(run, (err: Error & { httpStatus?: number }) => {
    assert.equal(err.httpStatus, 400);
    assert.equal(err.message, message);
    return true;
  });
}

test('messages over the limit are refused before any message is looked at', () => {
  // The fourth message is malformed: the count is what the client hears about.
  const messages = [user('a'), user('b'), user('c'), { role: 'nobody' }];
  rejects(() => validateChatRequest({ model: 'm', messages }, { limits }), 'Validation: Request has 4 messages, more than the limit of 3 (--max-request-messages)');
  validateChatRequest({ model: 'm', messages: messages.slice(0, 3) }, { limits });
});

test('tools over the limit keep upstream words and name the option', () => {
  rejects(
    () => validateChatRequest({ model: 'm', messages: [user('a')], tools: [tool('a'), tool('b'), tool('c')] }, { limits }),
    'Validation: Maximum of 2 tools are supported, got 3 (--max-request-tools)',
  );
});

test('prompt characters count contents, text parts, reasoning and tool-call arguments', () => {
  const fits = [
    user('x'.repeat(40)),
    user([{ type: 'text', text: 'y'.repeat(30) }]),
    { role: 'assistant', content: null, reasoning_content: 'r'.repeat(10), tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":"' + 'z'.repeat(12) + '"}' } }] },
  ];
  validateChatRequest({ model: 'm', messages: fits }, { limits });
  rejects(
    () => validateChatRequest({ model: 'm', messages: [...fits.slice(0, 2), user('w'.repeat(31))] }, { limits }),
    'Validation: Prompt has 101 characters, more than the limit of 100 (--max-prompt-chars)',
  );
});

test('completions prompts count every string of a batch, not token ids', () => {
  rejects(
    () => validateCompletionRequest({ model: 'm', prompt: ['a'.repeat(60), 'b'.repeat(41)] }, { limits }),
    'Validation: Prompt has 101 characters, more than the limit of 100 (--max-prompt-chars)',
  );
  validateCompletionRequest({ model: 'm', prompt: Array.from({ length: 200 }, () => 7) }, { limits });
});

test('without options the defaults apply', () => {
  assert.deepEqual(DEFAULT_REQUEST_LIMITS, { maxMessages: 4096, maxTools: 1536, maxPromptChars: 4_000_000 });
  const messages = Array.from({ length: 4097 }, () => user('a'));
  assert.throws(() => validateChatRequest({ model: 'm', messages }), /more than the limit of 4096/);
});
