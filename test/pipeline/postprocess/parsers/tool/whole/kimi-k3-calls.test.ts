// Kimi K3's XTML channels: the response streams, calls are released whole with ids `tool:index-1`;
// cases after upstream's kimi_k3 parser and its golden cases, in our own data.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, counted } from '../support.js';

const k3 = TOOL_CALL_PARSERS.kimi_k3;
const SEP = '<|sep|>';
const arg = (key: string, type: string | null, value: string): string =>
  `<|open|>argument key="${key}"${type === null ? '' : ` type="${type}"`}${SEP}${value}<|close|>argument${SEP}`;
const callOf = (attrs: string, body: string): string => `<|open|>call ${attrs}${SEP}${body}<|close|>call${SEP}`;
const tools = (...calls: string[]): string => `<|open|>tools${SEP}${calls.join('\n')}<|close|>tools${SEP}`;
const response = (text: string): string => `<|open|>response${SEP}${text}<|close|>response${SEP}`;
const END = `<|close|>message${SEP}<|end_of_msg|>`;
const called = (id: string, name: string, args: string) => ({ id, name, arguments: args });

describe('kimi_k3', () => {
  it('streams the response and reads typed arguments; nothing outside the response once it closed', () => {
    const body = [arg('city', 'string', 'Reykjavík'), arg('days', 'number', '2.50'), arg('wind', 'boolean', 'true'), arg('area', 'object', '{ "z": 1, "a": [1, 2] }'), arg('gap', 'null', 'null')].join('');
    assertToolParse(k3, `${response('Checking the forecast.')}\n${tools(callOf('tool="weather" index="1"', body))}${END}trailing`, [
      { content: 'Checking the forecast.' },
      called('weather:0', 'weather', '{"city":"Reykjavík","days":2.50,"wind":true,"area":{"z":1,"a":[1,2]},"gap":null}'),
    ]);
  });

  it('a reply with the response opener in the prompt, and plain text, are answer text', () => {
    assertToolParse(k3, `All set.<|close|>response${SEP} ${END}`, [{ content: 'All set.' }]);
    assertToolParse(k3, 'Nothing special here: <|ope is text.', [{ content: 'Nothing special here: <|ope is text.' }]);
  });

  it('reads several calls; ids from their index; untyped is text; a mistyped value is text; a later key replaces', () => {
    const calls = tools(
      callOf('tool="a" index="3"', arg('x', null, '42') + arg('y', 'number', 'many') + arg('x', null, 'again')),
      callOf('tool="b" index="raw"', ''),
      callOf('tool="c"', `<|open|>json type="object"${SEP}{"keep":  "as written"}<|close|>json${SEP}`),
    );
    assertToolParse(k3, calls, [called('a:2', 'a', '{"x":"again","y":"many"}'), called('b:raw', 'b', '{}'), called('c', 'c', '{"keep":  "as written"}')]);
  });

  it('unescapes attributes', () => {
    assertToolParse(k3, tools(callOf('tool="a&quot;b&amp;c" index="1"', '')), [called('a"b&c:0', 'a"b&c', '{}')]);
  });

  it('drops a call without a tool name, or whose body does not read', () => {
    assertToolParse(k3, tools(callOf('index="1"', ''), callOf('tool="x" index="2"', 'loose text'), callOf('tool="ok" index="3"', '')), [called('ok:2', 'ok', '{}')]);
  });

  it('reads a call written outside a tools section', () => {
    assertToolParse(k3, `Sure. ${callOf('tool="t" index="1"', arg('q', 'string', 'v'))} done`, [{ content: 'Sure. ' }, called('t:0', 't', '{"q":"v"}'), { content: ' done' }]);
  });

  it('a call cut off keeps the calls before it, and itself only when its last argument closed', () => {
    const first = callOf('tool="first" index="1"', '');
    assertToolParse(k3, `<|open|>tools${SEP}${first}<|open|>call tool="second" index="2"${SEP}${arg('x', 'number', '1')}`, [
      called('first:0', 'first', '{}'),
      called('second:1', 'second', '{"x":1}'),
    ]);
    assertToolParse(k3, `<|open|>tools${SEP}${first}<|open|>call tool="second" index="2"${SEP}<|open|>argument key="x"${SEP}Pa`, [called('first:0', 'first', '{}')]);
    assertToolParse(k3, `<|open|>tools${SEP}<|open|>call tool="cut" index="1"${SEP}${arg('k', null, 'v')}${END}`, [called('cut:0', 'cut', '{"k":"v"}')]);
  });

  it('a call that never closes before the next one is dropped', () => {
    assertToolParse(k3, tools(`<|open|>call tool="lost" index="1"${SEP}`, callOf('tool="kept" index="2"', '')), [called('kept:1', 'kept', '{}')]);
  });

  it('drops stray channel markup from the answer, and reads the spaced spelling of the markers', () => {
    assertToolParse(k3, `<|close|>think${SEP}Answer<|close|>tools${SEP}.`, [{ content: 'Answer.' }]);
    const spaced = `<|open|> response <|sep|>Hi.<|close|> response <|sep|><|open|> tools <|sep|><|open|> call tool="f" index="1"${SEP}<|close|> call <|sep|><|close|> tools <|sep|>`;
    assertToolParse(k3, spaced, [{ content: 'Hi.' }, called('f:0', 'f', '{}')]);
  });

  it('releases a call whole once it closes', () => {
    const parser = counted(k3);
    assert.deepEqual(parser.push(`<|open|>tools${SEP}<|open|>call tool="f" index="1"${SEP}`), []);
    assert.deepEqual(parser.push(`<|close|>call${SEP}`), [
      { type: 'call_start', index: 0, id: 'f:0', name: 'f' },
      { type: 'call_arguments', index: 0, fragment: '{}' },
      { type: 'call_end', index: 0 },
    ]);
  });

  it('is the parser of the alias kimi-k3', () => {
    assertToolParse(TOOL_CALL_PARSERS['kimi-k3'], tools(callOf('tool="f" index="1"', '')), [called('f:0', 'f', '{}')]);
  });
});
