// Anthropic content blocks as the chat messages a template renders: documents, search results and
// the blocks of a tool result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatMessages } from '../../../../src/frontends/http/anthropic/content-blocks.js';
import { ValidationError } from '../../../../src/protocols/index.js';

const PNG = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };

test('a plain-text document is text for the model, headed by its title and context', () => {
  const messages = chatMessages([
    {
      role: 'user',
      content: [
        { type: 'document', title: 'Notes', context: 'from the wiki', source: { type: 'text', media_type: 'text/plain', data: 'The sky is blue.' } },
        { type: 'text', text: 'What colour is the sky?' },
      ],
    },
  ]);
  assert.deepEqual(messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'title: Notes\ncontext: from the wiki\n\nThe sky is blue.' },
        { type: 'text', text: 'What colour is the sky?' },
      ],
    },
  ]);
});

test('a content-source document keeps its text and images; with no title it is its text alone', () => {
  const [message] = chatMessages([
    { role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'page one' }, { type: 'image', source: PNG }] } }] },
  ]);
  assert.deepEqual(message!.content, [
    { type: 'text', text: 'page one' },
    { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
  ]);
  const [plain] = chatMessages([{ role: 'user', content: [{ type: 'document', title: 'T', source: { type: 'content', content: 'just text' } }] }]);
  assert.deepEqual(plain!.content, [{ type: 'text', text: 'title: T\n\njust text' }]);
});

test('a search result is its title, source and text', () => {
  const [message] = chatMessages([
    {
      role: 'user',
      content: [{ type: 'search_result', title: 'Sky', source: 'https://example.test/sky', content: [{ type: 'text', text: 'Blue by day.' }, { type: 'text', text: 'Black by night.' }] }],
    },
  ]);
  assert.deepEqual(message!.content, [{ type: 'text', text: 'title: Sky\nsource: https://example.test/sky\n\nBlue by day.\n\nBlack by night.' }]);
});

test('a tool result: its text, documents and search results are the tool message; its images follow in the user turn', () => {
  const messages = chatMessages([
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.png' } }] },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'read a.png; ' },
            { type: 'image', source: PNG },
            { type: 'search_result', title: 'S', source: 'src', content: [{ type: 'text', text: 'found' }] },
          ],
        },
        { type: 'text', text: 'describe it' },
      ],
    },
  ]);
  assert.deepEqual(messages.slice(1), [
    { role: 'tool', tool_call_id: 'toolu_1', content: 'read a.png; title: S\nsource: src\n\nfound' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }, { type: 'text', text: 'describe it' }] },
  ]);
});

test('what the gateway cannot read is a 400 naming the block: PDFs, file ids, unknown block types', () => {
  const refused = (content: unknown[], message: RegExp): void =>
    assert.throws(() => chatMessages([{ role: 'user', content }]), (err: unknown) => err instanceof ValidationError && message.test(err.message));
  refused([{ type: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' } }], /^messages\[0\]\.content\[0\]\.source\.type: PDF documents are not supported/);
  refused([{ type: 'document', source: { type: 'file', file_id: 'file_1' } }], /source\.type: "file" sources need the Files API/);
  refused([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'x' }] }], /^messages\[0\]\.content\[0\]\.content\[0\]\.type: content block type "tool_reference" is not supported here \(supported: text, image, document, search_result\)/);
  refused([{ type: 'search_result', title: 'S', source: 's', content: [{ type: 'image', source: PNG }] }], /content\[0\]\.type: a search result holds text blocks only/);
});
