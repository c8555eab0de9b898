// The scripted mocker's replies: the file's checks, the choice by turn and phrase, and the turn count
// read from a prompt rendered by the model's own template.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadDefaultModelCard } from '../../../src/models/index.js';
import { assistantTurns, chooseReply, loadMockerScript } from '../../../src/launch/mocker/mocker-script.js';
import { userTurnMarkers } from '../../../src/launch/mocker/mocker-output.js';
import { HfTokenizer, Preprocessor, validateChatRequest } from '../../../src/pipeline/index.js';

function scriptFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'script-')), 'script.yaml');
  writeFileSync(file, text);
  return file;
}

test('a script file is checked entry by entry, naming the entry', () => {
  assert.throws(() => loadMockerScript(scriptFile('replies: []')), /`replies` must be a non-empty list/);
  assert.throws(() => loadMockerScript(scriptFile('replies:\n  - turn: 0\n')), /replies\[0\]\.text must be a string/);
  assert.throws(() => loadMockerScript(scriptFile('replies:\n  - text: a\n    turn: -1\n')), /replies\[0\]\.turn must be a whole number/);
  assert.throws(() => loadMockerScript(scriptFile('replies:\n  - text: a\n    when: 1\n')), /replies\[0\]: unknown key\(s\) when/);
  assert.deepEqual(loadMockerScript(scriptFile('{"replies": [{"text": "a", "turn": 1, "contains": "x"}]}')), [{ text: 'a', turn: 1, contains: 'x' }]);
});

test('the first reply whose turn and phrase fit; none fitting is said in the reply', () => {
  const replies = [{ text: 'call', turn: 0, contains: 'marker' }, { text: 'done', turn: 1 }, { text: 'other', turn: 0 }];
  assert.equal(chooseReply(replies, { turn: 0, lastUser: 'make the marker' }), 'call');
  assert.equal(chooseReply(replies, { turn: 0, lastUser: 'a title please' }), 'other');
  assert.equal(chooseReply(replies, { turn: 1, lastUser: null }), 'done');
  assert.equal(chooseReply(replies, { turn: 4, lastUser: null }), '[mocker script: no reply for turn 4]');
});

test("the turn is the number of assistant turns already in the prompt the model's template rendered", async () => {
  const card = loadDefaultModelCard();
  const tokenizer = new HfTokenizer(card.tokenizerJsonPath);
  const markers = await userTurnMarkers(card, tokenizer);
  const render = async (messages: unknown[]) =>
    (await new Preprocessor(card, tokenizer).preprocessChat(validateChatRequest({ model: card.displayName, messages }))).formattedPrompt!;
  const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } };
  assert.equal(assistantTurns(await render([{ role: 'user', content: 'task' }]), markers.assistantOpen), 0);
  const afterTool = await render([
    { role: 'user', content: 'task' },
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'c1', content: 'ok' },
  ]);
  assert.equal(assistantTurns(afterTool, markers.assistantOpen), 1);
});
