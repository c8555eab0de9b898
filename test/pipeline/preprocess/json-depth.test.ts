import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkJsonDepth, MAX_JSON_DEPTH } from '../../../src/pipeline/preprocess/json-depth.js';
import type { DynamoError } from '../../../src/protocols/index.js';

const nestedArrays = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
const nestedObjects = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

function depthError(value: unknown): DynamoError {
  try {
    checkJsonDepth(value);
  } catch (err) {
    return err as DynamoError;
  }
  assert.fail('expected a depth error');
}

test('values up to the limit pass, one level more is a 400 naming the limit', () => {
  checkJsonDepth(nestedArrays(MAX_JSON_DEPTH));
  checkJsonDepth(nestedObjects(MAX_JSON_DEPTH));
  const err = depthError(nestedArrays(MAX_JSON_DEPTH + 1));
  assert.equal(err.httpStatus, 400);
  assert.match(err.message, /recursion limit exceeded: JSON nested deeper than 128 levels/);
});

test('100k levels are refused without overflowing the stack', () => {
  for (const value of [nestedArrays(100_000), nestedObjects(100_000)]) {
    assert.equal(depthError(value).httpStatus, 400);
  }
});

test('the message names the field, its first steps only', () => {
  const body = { model: 'm', logit_bias: { '5': nestedArrays(10_000) } };
  assert.equal(
    depthError(body).message,
    'Failed to deserialize the JSON body into the target type: logit_bias.5[0][0]…: recursion limit exceeded: JSON nested deeper than 128 levels',
  );
  const tools = { tools: [{ function: { parameters: nestedObjects(500) } }] };
  assert.match(depthError(tools).message, /: tools\[0\]\.function\.parameters…: recursion limit/);
  assert.match(depthError({ metadata: nestedObjects(200) }).message, /: metadata\.a\.a\.a…: /);
});

test('wide values are walked fully and pass', () => {
  const wide = { messages: Array.from({ length: 50_000 }, (_, i) => ({ role: 'user', content: [{ type: 'text', text: `m${i}` }] })) };
  checkJsonDepth(wide);
  checkJsonDepth([1, 'x', null, true, { a: [] }]);
});
