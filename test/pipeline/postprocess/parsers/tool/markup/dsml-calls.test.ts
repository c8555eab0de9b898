// DeepSeek V3.2 and V4 (DSML): blocks of invokes, `string="true"` text and other values JSON;
// cases after upstream's DSML parser and its deepseek_v4 golden cases, in our own data.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_CALL_PARSERS } from '../../../../../../src/pipeline/postprocess/index.js';
import { assertToolParse, builtCall, counted } from '../support.js';

const v4 = TOOL_CALL_PARSERS.deepseek_v4;
const v32 = TOOL_CALL_PARSERS.deepseek_v3_2;

const P = (name: string, value: string, string?: boolean): string =>
  `<｜DSML｜parameter name="${name}"${string === undefined ? '' : ` string="${string}"`}>${value}</｜DSML｜parameter>`;
const invoke = (name: string, ...parameters: string[]): string => `<｜DSML｜invoke name="${name}">\n${parameters.join('\n')}\n</｜DSML｜invoke>`;
const block = (name: string, ...invokes: string[]): string => `<｜DSML｜${name}>\n${invokes.join('\n')}\n</｜DSML｜${name}>`;

describe('deepseek_v4', () => {
  it('reads a call between text; the blank line before the block belongs to it', () => {
    const text = `Let me look that up.\n\n${block('tool_calls', invoke('find_flights', P('from', 'OSL', true), P('seats', '2', false)))}\nBack soon.`;
    assertToolParse(v4, text, [{ content: 'Let me look that up.' }, builtCall(1, 'find_flights', { from: 'OSL', seats: 2 }), { content: '\nBack soon.' }]);
  });

  it('types values by their string attribute, never by the schema', () => {
    const tools = [{ name: 'book', parameters: { properties: { room: { type: 'integer' } } } }];
    const text = block(
      'tool_calls',
      invoke('book', P('room', '0042', true), P('guests', '["Ana", "Bo"]', false), P('extras', '{"late": true}'), P('note', 'window seat'), P('nights', ' 3 ', false)),
    );
    assertToolParse(v4, text, [builtCall(1, 'book', { room: '0042', guests: ['Ana', 'Bo'], extras: { late: true }, note: 'window seat', nights: 3 })], { tools });
  });

  it('reads several invokes in a block and several blocks, text between kept', () => {
    const text =
      `${block('tool_calls', invoke('a', P('x', '1', false)), invoke('b'))} then ` +
      block('tool_calls', invoke('c', P('y', 'z', true)));
    assertToolParse(v4, text, [builtCall(1, 'a', { x: 1 }), builtCall(2, 'b', {}), { content: ' then ' }, builtCall(3, 'c', { y: 'z' })]);
  });

  it('reads an invoke written without its block', () => {
    assertToolParse(v4, `On it: ${invoke('ls', P('path', '/tmp', true))} ok`, [{ content: 'On it: ' }, builtCall(1, 'ls', { path: '/tmp' }), { content: ' ok' }]);
  });

  it('never shows its markup: a block that holds no call is dropped', () => {
    assertToolParse(v4, 'Hm <｜DSML｜tool_calls>nonsense</｜DSML｜tool_calls> ok', [{ content: 'Hm  ok' }]);
    assertToolParse(v4, 'Hm\n\n<｜DSML｜tool_calls>\n', [{ content: 'Hm' }]);
  });

  it('drops an invoke the stream cuts off; the calls before it stay', () => {
    const text = `${block('tool_calls', invoke('first', P('n', '1', false)))}<｜DSML｜tool_calls>\n${'<｜DSML｜invoke name="second">\n'}${P('q', 'cut', true)}`;
    assertToolParse(v4, text, [builtCall(1, 'first', { n: 1 })]);
    assertToolParse(v4, `x ${invoke('ls').slice(0, 40)}`, [{ content: 'x ' }]);
  });

  it('releases a call once its invoke closes', () => {
    const parser = counted(v4);
    assert.deepEqual(parser.push('<｜DSML｜tool_calls>\n<｜DSML｜invoke name="f">\n'), []);
    assert.deepEqual(parser.push(P('a', 'b', true)), []);
    assert.deepEqual(parser.push('\n</｜DSML｜invoke>'), [
      { type: 'call_start', index: 0, id: 'call-1', name: 'f' },
      { type: 'call_arguments', index: 0, fragment: '{"a":"b"}' },
      { type: 'call_end', index: 0 },
    ]);
    assert.deepEqual(parser.push('\n</｜DSML｜tool_calls>done'), [{ type: 'content', text: 'done' }]);
  });

  it('is the parser of the aliases deepseek-v4 and deepseekv4', () => {
    for (const alias of ['deepseek-v4', 'deepseekv4'] as const) {
      assertToolParse(TOOL_CALL_PARSERS[alias], block('tool_calls', invoke('f', P('k', 'v', true))), [builtCall(1, 'f', { k: 'v' })]);
    }
  });
});

describe('deepseek_v3_2', () => {
  it('reads the function_calls block', () => {
    const text = `Sure.\n\n${block('function_calls', invoke('weather', P('city', '杭州', true), P('date', '2025-01-16', true)), invoke('weather', P('city', '北京', true)))}`;
    assertToolParse(v32, text, [{ content: 'Sure.' }, builtCall(1, 'weather', { city: '杭州', date: '2025-01-16' }), builtCall(2, 'weather', { city: '北京' })]);
  });

  it("is not V4's block, nor V4 V3.2's", () => {
    assertToolParse(v32, `a ${block('tool_calls')} b`, [{ content: `a ${block('tool_calls')} b` }]);
    assertToolParse(v4, `a ${block('function_calls')} b`, [{ content: `a ${block('function_calls')} b` }]);
  });
});
