// Gemma 4: `<|tool_call>call:name{key:value,…}<tool_call|>` with Gemma's literal grammar; cases after
// upstream's gemma4 parser and its golden cases, in our own data.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, call, counted } from '../support.js';

const gemma4 = TOOL_CALL_PARSERS.gemma4;
const Q = '<|"|>';
const tool = (body: string): string => `<|tool_call>${body}<tool_call|>`;

describe('gemma4', () => {
  it('reads a call between text', () => {
    assertToolParse(gemma4, `Let me see. ${tool(`call:get_weather{location:${Q}Oslo, Norway${Q},days:3}`)} One moment.`, [
      { content: 'Let me see. ' },
      call(1, 'get_weather', '{"location":"Oslo, Norway","days":3}'),
      { content: ' One moment.' },
    ]);
  });

  it('reads every kind of value', () => {
    const body = `call:plan{n:-7,ratio:1.25,whole:2.0,on:TRUE,off:false,none:None,nothing:nil,empty:,tags:[${Q}a${Q}, 2, [true]],where:{lat:59.9,name:${Q}x: {y}, z${Q}},blank:${Q}${Q}}`;
    assertToolParse(gemma4, tool(body), [
      call(1, 'plan', '{"n":-7,"ratio":1.25,"whole":2.0,"on":true,"off":false,"none":null,"nothing":null,"empty":"","tags":["a",2,[true]],"where":{"lat":59.9,"name":"x: {y}, z"},"blank":""}'),
    ]);
  });

  it('reads calls written back to back, and a call without arguments', () => {
    assertToolParse(gemma4, tool(`call:first{a:1}`) + tool('call:second{}') + 'after', [call(1, 'first', '{"a":1}'), call(2, 'second', '{}'), { content: 'after' }]);
  });

  it('a later key replaces an earlier one in its place', () => {
    assertToolParse(gemma4, tool(`call:f{a:1,b:2,a:3}`), [call(1, 'f', '{"a":3,"b":2}')]);
  });

  it('drops a call whose header is not call:name{…}; unreadable arguments become {}', () => {
    assertToolParse(gemma4, `a${tool('get_weather{x:1}')}b`, [{ content: 'ab' }]);
    assertToolParse(gemma4, tool('call:f{x:1} trailing'), []);
    assertToolParse(gemma4, tool('call:f{x:@}') + tool('call:g{x:1,}') + tool('call:h{n:99999999999999999999}'), [
      call(1, 'f', '{}'),
      call(2, 'g', '{}'),
      call(3, 'h', '{}'),
    ]);
  });

  it('a string left open runs to the end of the arguments', () => {
    assertToolParse(gemma4, tool(`call:f{s:${Q}no end}`), [call(1, 'f', '{"s":"no end"}')]);
  });

  it('the first <tool_call|> ends the call, even inside a string', () => {
    assertToolParse(gemma4, tool(`call:f{s:${Q}a`) + `b${Q}}<tool_call|>`, [{ content: `b${Q}}<tool_call|>` }]);
  });

  it('a call the stream cuts off is the text it was', () => {
    assertToolParse(gemma4, `Sure <|tool_call>call:f{x:${Q}par`, [{ content: `Sure <|tool_call>call:f{x:${Q}par` }]);
    assertToolParse(gemma4, 'plain <|tool_ca', [{ content: 'plain <|tool_ca' }]);
  });

  it('releases a call whole once <tool_call|> comes', () => {
    const parser = counted(gemma4);
    assert.deepEqual(parser.push('ok <|tool_call>call:f{'), [{ type: 'content', text: 'ok ' }]);
    assert.deepEqual(parser.push('x:1}'), []);
    assert.deepEqual(parser.push('<tool_call|>'), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'f' },
      { type: 'call_arguments', index: 0, fragment: '{"x":1}' },
      { type: 'call_end', index: 0 },
    ]);
  });

  it('is the parser of the alias gemma-4', () => {
    assertToolParse(TOOL_CALL_PARSERS['gemma-4'], tool('call:f{}'), [call(1, 'f', '{}')]);
  });
});
