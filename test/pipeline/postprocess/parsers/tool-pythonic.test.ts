// pythonic: `[f(a=1), g(b="x")]`, keyword arguments become the arguments object piece by piece.
// Cases after upstream's lib/parsers/src/tool_calling/pythonic/pythonic_parser.rs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pythonicTools } from '../../../../src/pipeline/postprocess/parsers/tool-pythonic.js';
import { assertParses, call, counted, fold, pushAll } from './tool-support.js';

test('pythonic: two calls', () => {
  assertParses(pythonicTools, '[foo(a=1, b=2), bar(x=3)]', [call(1, 'foo', { a: 1, b: 2 }), call(2, 'bar', { x: 3 })]);
});

test('pythonic: text before and after, new lines and spaces in the list', () => {
  assertParses(pythonicTools, 'Hey \n yo ! [foo(a=1,b=2), \n bar(x= 3)] Hey yo', [
    'Hey \n yo ! ',
    call(1, 'foo', { a: 1, b: 2 }),
    call(2, 'bar', { x: 3 }),
    ' Hey yo',
  ]);
});

test('pythonic: python tags are dropped', () => {
  assertParses(pythonicTools, '<|python_start|>[foo(a=1, b=2), bar(x=3)]<|python_end|>', [
    call(1, 'foo', { a: 1, b: 2 }),
    call(2, 'bar', { x: 3 }),
  ]);
});

test('pythonic: lists, tuples, dicts, strings, constants', () => {
  assertParses(
    pythonicTools,
    `[foo(a=[1, 2, 3], b=(4, 5,), c={'x': 3, 'y': {'e': 'f'}}, d="say \\"hi\\"\\n", e='it\\'s', f=True, g=None, h=-2.5e1), now()]`,
    [
      call(1, 'foo', { a: [1, 2, 3], b: [4, 5], c: { x: 3, y: { e: 'f' } }, d: 'say "hi"\n', e: "it's", f: true, g: null, h: -25 }),
      call(2, 'now', {}),
    ],
  );
});

test('pythonic: brackets that are not calls are content', () => {
  assertParses(pythonicTools, 'Hey [ There is one tool call here . foo(a=1, b=2)', ['Hey [ There is one tool call here . foo(a=1, b=2)']);
  assertParses(pythonicTools, 'see [1, 2] and [note]', ['see [1, 2] and [note]']);
  assertParses(pythonicTools, 'a [', ['a [']);
});

test('pythonic: each keyword argument streams once its value is whole', () => {
  const parser = counted(pythonicTools);
  assert.deepEqual(parser.push('[get_weather('), [{ type: 'call_start', index: 0, id: 'call-1', name: 'get_weather' }]);
  assert.deepEqual(parser.push('city="Par'), []);
  assert.deepEqual(parser.push('is", days=3'), [{ type: 'call_arguments', index: 0, fragment: '{"city":"Paris"' }]);
  assert.deepEqual(parser.push(')]'), [
    { type: 'call_arguments', index: 0, fragment: ',"days":3' },
    { type: 'call_arguments', index: 0, fragment: '}' },
    { type: 'call_end', index: 0 },
  ]);
  assert.deepEqual(parser.finish(), []);
});

test('pythonic: a call that breaks off ends with what it has, the rest is content', () => {
  const text = '[f(a=1, b=x+1)] tail';
  const folded = fold(pushAll(counted(pythonicTools), Array.from(text)));
  assert.deepEqual(folded, [call(1, 'f', { a: 1 }), ' b=x+1)] tail']);
  assert.deepEqual(fold(pushAll(counted(pythonicTools), [text])), folded);
});

test('pythonic: a call cut off by the end of the stream is closed', () => {
  assertParses(pythonicTools, '[f(a=1, b="tw', [call(1, 'f', { a: 1 })]);
});
