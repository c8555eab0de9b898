import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asU64, parseJsonLossless, stringifyJsonWithU64 } from '../../../src/runtime/index.js';

test('integers beyond 2^53 come back exact as bigint; the rest as JSON.parse would give', () => {
  const text = '{"a":18446744073709551615,"b":[1,-2.5e3,true,null,"x\\"y\\u00e9"],"c":9007199254740991,"d":{}}';
  assert.deepEqual(parseJsonLossless(text), { a: 18446744073709551615n, b: [1, -2500, true, null, 'x"yé'], c: 9007199254740991, d: {} });
  assert.throws(() => parseJsonLossless('{"a":1,}'), SyntaxError);
  assert.throws(() => parseJsonLossless('[1] 2'), SyntaxError);
});

test('bigints are written as bare numbers and read back unchanged', () => {
  const value = { id: 2252259416447694086n, name: 'u64:1', list: [1n, 2] };
  const text = stringifyJsonWithU64(value);
  assert.equal(text, '{"id":2252259416447694086,"name":"u64:1","list":[1,2]}');
  assert.deepEqual(parseJsonLossless(text), { id: 2252259416447694086n, name: 'u64:1', list: [1, 2] });
  assert.equal(asU64(-1), 18446744073709551615n);
  assert.equal(asU64('1'), null);
});
