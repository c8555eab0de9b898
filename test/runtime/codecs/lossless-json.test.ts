import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asU64, parseJsonLossless, stringifyJsonWithU64 } from '../../../src/runtime/index.js';

test('integers beyond 2^53 come back exact as bigint; the rest as JSON.parse would give', () => {
  const text = '{"a":18446744073709551615,"b":[1,-2.5e3,true,null,"x\\"y\\u00e9"],"c":9007199254740991,"d":{}}';
  assert.deepEqual(parseJsonLossless(text), { a: 18446744073709551615n, b: [1, -2500, true, null, 'x"yé'], c: 9007199254740991, d: {} });
  assert.throws(() => parseJsonLossless('{"a":1,}'), SyntaxError);
  assert.throws(() => parseJsonLossless('[1] 2'), SyntaxError);
});

test('digits in strings, long decimals and exponents are left alone; escaped strings are decoded as JSON.parse would', () => {
  const text = '{"s":"12345678901234567890","m":"\\u0001u64:5","mm":"\\u0001\\u0001u64:7","n":18446744073709551615,"k":[-9223372036854775808]}';
  assert.deepEqual(parseJsonLossless(text), { s: '12345678901234567890', m: '\u0001u64:5', mm: '\u0001\u0001u64:7', n: 18446744073709551615n, k: [-9223372036854775808n] });
  assert.deepEqual(parseJsonLossless('[1.12345678901234567890, 12345678901234567e2, 1e-12345678901234567, 9007199254740993 ]'), [
    1.12345678901234567890, 12345678901234567e2, 0, 9007199254740993n,
  ]);
  assert.deepEqual(parseJsonLossless('{"a\\"b":"x\\\\","c":12345678901234567890}'), { 'a"b': 'x\\', c: 12345678901234567890n });
});

test('invalid JSON with long integers is still refused (a raw control character in a string too)', () => {
  for (const bad of ['[00000000000000000001]', '{"a":"12345678901234567890}', '[12345678901234567890', '{"a":--12345678901234567890}', '["\t",12345678901234567890]']) {
    assert.throws(() => parseJsonLossless(bad), SyntaxError, bad);
  }
});

test('bigints are written as bare numbers and read back unchanged', () => {
  const value = { id: 2252259416447694086n, name: 'u64:1', list: [1n, 2] };
  const text = stringifyJsonWithU64(value);
  assert.equal(text, '{"id":2252259416447694086,"name":"u64:1","list":[1,2]}');
  assert.deepEqual(parseJsonLossless(text), { id: 2252259416447694086n, name: 'u64:1', list: [1, 2] });
  assert.equal(asU64(-1), 18446744073709551615n);
  assert.equal(asU64('1'), null);
});
