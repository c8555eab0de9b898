// Muse Glimmer: messages routed to recipients, ATEM calls read only from tool messages; cases after
// upstream's muse_glimmer parser and its golden cases, in our own data.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, call, counted } from '../support.js';

const muse = TOOL_CALL_PARSERS.muse_glimmer;
const param = (name: string, value: string): string => `<atem:parameter name="${name}">${value}</atem:parameter>`;
const invoke = (name: string, ...params: string[]): string => `<atem:invoke name="${name}">\n${params.join('\n')}\n</atem:invoke>`;
const calls = (...invokes: string[]): string => `<atem:function_calls>\n${invokes.join('\n')}\n</atem:function_calls>`;
const framed = (to: string, body: string, end = '<|eom|>'): string => `<|start|>assistant to=${to}<|message|>${body}${end}`;

describe('muse_glimmer', () => {
  it("reads a call from the turn's first message, which comes without its framing", () => {
    assertToolParse(muse, ` to=lookup<|message|>${calls(invoke('lookup', param('term', 'fjord')))}<|eom|>`, [call(1, 'lookup', '{"term":"fjord"}')]);
  });

  it('drops reasoning, reads the tool message, streams the answer', () => {
    const text = ` to=self<|message|>Need a lookup.<|eom|>${framed('lookup', calls(invoke('lookup', param('term', 'fjord'))))}${framed('user', 'A fjord is a narrow inlet.', '<|eot|>')}`;
    assertToolParse(muse, text, [call(1, 'lookup', '{"term":"fjord"}'), { content: 'A fjord is a narrow inlet.' }]);
  });

  it('reads parallel calls in chained messages and several invokes in one', () => {
    const text = ` to=a<|message|>${calls(invoke('a', param('n', '1')), invoke('b'))}<|eom|>${framed('c', invoke('c', param('s', 'x')))}`;
    assertToolParse(muse, text, [call(1, 'a', '{"n":1}'), call(2, 'b', '{}'), call(3, 'c', '{"s":"x"}')]);
  });

  it('values are the JSON they spell, else their text as written', () => {
    const text = ` to=f<|message|>${invoke('f', param('n', '3'), param('ok', 'true'), param('none', 'null'), param('o', '{"k": [1]}'), param('q', '"true"'), param('raw', ' padded words '), param('bad', '{nope}'))}<|eot|>`;
    assertToolParse(muse, text, [call(1, 'f', '{"n":3,"ok":true,"none":null,"o":{"k":[1]},"q":"true","raw":" padded words ","bad":"{nope}"}')]);
  });

  it('ATEM in the answer or the reasoning is no call', () => {
    const quoted = invoke('demo', param('x', '1'));
    assertToolParse(muse, ` to=user<|message|>Example: ${quoted}<|eot|>`, [{ content: `Example: ${quoted}` }]);
    assertToolParse(muse, ` to=self<|message|>I could ${quoted}.<|eom|>${framed('user', 'No.', '<|eot|>')}`, [{ content: 'No.' }]);
    assertToolParse(muse, calls(quoted), [{ content: calls(quoted) }]);
  });

  it('a message without recipient is answer; plain text passes; stray framing is dropped', () => {
    assertToolParse(muse, '<|start|>assistant<|message|>Hello there.<|eot|>', [{ content: 'Hello there.' }]);
    assertToolParse(muse, 'The capital of Norway is Oslo.', [{ content: 'The capital of Norway is Oslo.' }]);
    assertToolParse(muse, 'some prose<|eom|> more', [{ content: 'some prose more' }]);
  });

  it('a doubled name is the tool the request offers', () => {
    const tools = [{ name: 'lookup' }];
    assertToolParse(muse, ` to=lookup.lookup<|message|>${invoke('lookup.lookup')}<|eom|>`, [call(1, 'lookup', '{}')], { tools });
    assertToolParse(muse, ` to=x<|message|>${invoke('other.other')}<|eom|>`, [call(1, 'other.other', '{}')], { tools });
  });

  it('reasoning that runs into a tool header without <|eom|> ends there', () => {
    assertToolParse(muse, ` to=self<|message|>thinking to=lookup<|message|>${invoke('lookup')}<|eom|>`, [call(1, 'lookup', '{}')]);
    assertToolParse(muse, ` to=self<|message|>weird potato=lookup<|message|>${invoke('lookup')}<|eom|>`, []);
  });

  it('an invoke the stream cuts off is dropped; a complete one in an unterminated message is kept', () => {
    assertToolParse(muse, ` to=lookup<|message|>${calls('')}<atem:invoke name="lookup">\n${param('term', 'fj')}`, []);
    assertToolParse(muse, ` to=lookup<|message|>${calls(invoke('lookup', param('term', 'fjord')))}`, [call(1, 'lookup', '{"term":"fjord"}')]);
  });

  it('releases a call whole once its invoke closes', () => {
    const parser = counted(muse);
    assert.deepEqual(parser.push(' to=f<|message|><atem:invoke name="f">'), []);
    assert.deepEqual(parser.push(`${param('a', '1')}</atem:invoke>`), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'f' },
      { type: 'call_arguments', index: 0, fragment: '{"a":1}' },
      { type: 'call_end', index: 0 },
    ]);
  });
});
