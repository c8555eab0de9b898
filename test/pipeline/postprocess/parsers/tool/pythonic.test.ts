// pythonic: `[f(a=1), g(b="x")]`, keyword arguments become the arguments object piece by piece.
// Cases after upstream's lib/parsers/src/tool_calling/pythonic/pythonic_parser.rs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pythonicToolCallParser } from '../../../../../src/pipeline/postprocess/parsers/tool/pythonic.js';
import { assertToolParse, builtCall, counted } from './support.js';

test('pythonic: two calls', () => {
  assertToolParse(pythonicToolCallParser, '[foo(a=1, b=2), bar(x=3)]', [builtCall(1, 'foo', { a: 1, b: 2 }), builtCall(2, 'bar', { x: 3 })]);
});

test('pythonic: text before and after, new lines and spaces in the list', () => {
  assertToolParse(pythonicToolCallParser, 'Hey \n yo ! [foo(a=1,b=2), \n bar(x= 3)] Hey yo', [
    { content: 'Hey \n yo ! ' },
    builtCall(1, 'foo', { a: 1, b: 2 }),
    builtCall(2, 'bar', { x: 3 }),
    { content: ' Hey yo' },
  ]);
});

test('pythonic: python tags are dropped', () => {
  assertToolParse(pythonicToolCallParser, '<|python_start|>[foo(a=1, b=2), bar(x=3)]<|python_end|>', [
    builtCall(1, 'foo', { a: 1, b: 2 }),
    builtCall(2, 'bar', { x: 3 }),
  ]);
});

test('pythonic: lists, tuples, dicts, strings, constants', () => {
  assertToolParse(
    pythonicToolCallParser,
    `[foo(a=[1, 2, 3], b=(4, 5,), c={'x': 3, 'y': {'e': 'f'}}, d="say \\"hi\\"\\n", e='it\\'s', f=True, g=None, h=-2.5e1), now()]`,
    [
      builtCall(1, 'foo', { a: [1, 2, 3], b: [4, 5], c: { x: 3, y: { e: 'f' } }, d: 'say "hi"\n', e: "it's", f: true, g: null, h: -25 }),
      builtCall(2, 'now', {}),
    ],
  );
});

test('pythonic: brackets that are not calls are content', () => {
  assertToolParse(pythonicToolCallParser, 'Hey [ There is one tool call here . foo(a=1, b=2)', [{ content: 'Hey [ There is one tool call here . foo(a=1, b=2)' }]);
  assertToolParse(pythonicToolCallParser, 'see [1, 2] and [note]', [{ content: 'see [1, 2] and [note]' }]);
  assertToolParse(pythonicToolCallParser, 'a [', [{ content: 'a [' }]);
});

test('pythonic: each keyword argument streams once its value is whole', () => {
  const parser = counted(pythonicToolCallParser);
  assert.deepEqual(parser.push('[get_weather('), [{ type: 'call_start', index: 0, id: 'call-1', name: 'get_weather' }]);
  assert.deepEqual(parser.push('city="Par'), []);
  assert.deepEqual(parser.push('is", days=3'), [{ type: 'call_arguments', index: 0, fragment: '{"city":"Paris"' }]);
  assert.deepEqual(parser.push(')]'), [
    { type: 'call_arguments', index: 0, fragment: ',"days":3}' },
    { type: 'call_end', index: 0 },
  ]);
  assert.deepEqual(parser.finish(), []);
});

test('pythonic: a call that breaks off ends with what it has, the rest is content', () => {
  const text = '[f(a=1, b=x+1)] tail';
  assertToolParse(pythonicToolCallParser, text, [builtCall(1, 'f', { a: 1 }), { content: ' b=x+1)] tail' }]);
});

test('pythonic: a call cut off by the end of the stream is closed', () => {
  assertToolParse(pythonicToolCallParser, '[f(a=1, b="tw', [builtCall(1, 'f', { a: 1 })]);
});
